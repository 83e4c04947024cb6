package procinfo

import "strings"

// Options of the remote-shell clients that take a value (ssh(1), mosh(1),
// Eternal Terminal's et), so the destination is found after them.
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

// SSHDestination returns the host an ssh, autossh, mosh or et command line
// connects to, for the {host} token: the destination operand without a
// user@ prefix, an ssh:// scheme or a port ("deploy@web1" -> "web1",
// "ssh://u@db:2222" -> "db"). "" when argv is not such a client or names no
// host. Launchers are not looked through here: pass Program.Argv.
func SSHDestination(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name, _ := cleanName(argv[0])
	var spec optSpec
	switch name {
	case "ssh":
		spec = sshOpts
	case "autossh":
		spec = autosshOpts
	case "mosh":
		spec = moshOpts
	case "et":
		spec = etOpts
	default:
		return ""
	}
	args := argv[1:]
	i := spec.operand(args)
	if i >= len(args) {
		return ""
	}
	dest := args[i]
	uri := false
	if rest, ok := strings.CutPrefix(dest, "ssh://"); ok {
		dest, uri = rest, true
		dest, _, _ = strings.Cut(dest, "/")
	}
	if at := strings.LastIndexByte(dest, '@'); at >= 0 {
		dest = dest[at+1:]
	}
	if strings.HasPrefix(dest, "[") {
		// An IPv6 literal, maybe with a port: [::1]:2222.
		if end := strings.IndexByte(dest, ']'); end > 0 {
			return dest[1:end]
		}
	}
	if uri || name == "et" {
		// ssh proper takes no host:port; a URI and et do.
		if c := strings.LastIndexByte(dest, ':'); c > 0 && strings.Count(dest, ":") == 1 {
			dest = dest[:c]
		}
	}
	return dest
}
