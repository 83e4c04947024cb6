package procinfo

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

// SSHDestination returns the destination operand of an ssh, autossh, mosh
// or et command line, as typed ("deploy@web1", "ssh://u@db:2222"), for the
// {host} token; sshhosts.HostOf reduces it to the host. "" when argv is not
// such a client or names no host. Launchers are not looked through here:
// pass Program.Argv.
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
	return args[i]
}
