package procinfo

// sshDestination returns the destination operand of an ssh, autossh, mosh
// or et command line, as typed ("deploy@web1", "ssh://u@db:2222");
// sshhosts.HostOf reduces it to the host. "" when argv is not such a
// client or names no host. Launchers are not looked through here: pass
// Program.Argv.
func sshDestination(argv []string) string {
	dest, _ := remoteCommand(argv)
	return dest
}
