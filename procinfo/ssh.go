package procinfo

import "strings"

// Options of the remote-shell clients that take a value, so the destination
// is found after them. ssh's come from OpenSSH's getopt string
// "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy";
// mosh(1) and Eternal Terminal's et take theirs from their manuals.
var (
	sshOpts     = optSpec{short: "BbcDEeFIiJLlmOoPpQRSWw"}
	autosshOpts = optSpec{short: "BbcDEeFIiJLlmOoPpQRSWwM"}
	moshOpts    = optSpec{short: "p", long: []string{
		"--client", "--server", "--ssh", "--predict", "--port", "--family",
		"--bind-server", "--experimental-remote-ip"}}
	etOpts = optSpec{short: "ptrcuxl", long: []string{
		"--port", "--tunnel", "--reversetunnel", "--jumphost", "--jport", "--command",
		"--terminal-path", "--serverfifo", "--logdir", "--username"}}
)

// remoteSpec returns the option grammar of a remote-shell client by its
// cleaned name.
func remoteSpec(name string) (optSpec, bool) {
	switch name {
	case "ssh":
		return sshOpts, true
	case "autossh":
		return autosshOpts, true
	case "mosh", "mosh-client":
		return moshOpts, true
	case "et":
		return etOpts, true
	}
	return optSpec{}, false
}

// remoteCommand splits a remote-shell command line into its destination
// and the command it runs on the remote host (nil for a login shell).
//
// ssh parses options again after the destination unless "--" came before
// it (ssh.c: "goto again"), and its first non-option after that starts the
// remote command, which the remote shell runs as one string. mosh takes the
// command after the host (optionally behind "--"); et only with -c.
func remoteCommand(argv []string) (dest string, cmd []string) {
	if len(argv) == 0 {
		return "", nil
	}
	name, _ := cleanName(argv[0])
	spec, ok := remoteSpec(name)
	if !ok {
		return "", nil
	}
	args := argv[1:]
	if name == "mosh-client" {
		// Once connected, mosh execs mosh-client with its own command
		// line folded into one argument for ps: "-# zmb btop |" (mosh.pl).
		if len(args) == 0 {
			return "", nil
		}
		inner, ok := strings.CutPrefix(args[0], "-#")
		if !ok {
			return "", nil
		}
		args = strings.Fields(strings.TrimSuffix(strings.TrimSpace(inner), "|"))
		name = "mosh"
	}
	var etCmd string
	visit := func(s byte, l, v string) bool {
		if name == "et" && (s == 'c' || l == "--command") {
			etCmd = v
		}
		return true
	}
	i, _ := spec.scan(args, visit)
	if i >= len(args) {
		return "", nil
	}
	dest = args[i]
	rest := args[i+1:]
	terminated := i > 0 && args[i-1] == "--"
	if !terminated || name == "mosh" {
		j, _ := spec.scan(rest, visit)
		rest = rest[j:]
	}
	if name == "et" {
		return dest, splitCommand(etCmd)
	}
	if len(rest) == 0 {
		return dest, nil
	}
	// The remote shell gets the words joined by spaces and parses them
	// itself.
	return dest, splitCommand(strings.Join(rest, " "))
}
