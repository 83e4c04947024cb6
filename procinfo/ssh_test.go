package procinfo

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/sshhosts"
)

// host is what {host} shows without an ssh config alias.
func host(argv []string) string { return sshhosts.HostOf(sshDestination(argv)) }

func TestSSHDestination(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"ssh", "web1"}, "web1"},
		{[]string{"/usr/bin/ssh", "deploy@web1", "uptime"}, "web1"},
		{[]string{"ssh", "-p", "2222", "-i", "/home/u/.ssh/id_ed25519", "deploy@web1", "uptime"}, "web1"},
		{[]string{"ssh", "-vvv", "-tt", "-A", "bastion"}, "bastion"},
		{[]string{"ssh", "-p2222", "-lroot", "db"}, "db"},
		{[]string{"ssh", "-o", "StrictHostKeyChecking=no", "-J", "jump", "-L", "8080:localhost:80", "-F", "cfg", "app"}, "app"},
		{[]string{"ssh", "-b", "10.0.0.1", "-c", "aes", "-D", "1080", "-E", "log", "-e", "~", "-m", "hmac", "-O", "check", "-Q", "cipher", "-S", "sock", "-W", "h:22", "-w", "0", "-B", "eth0", "-I", "pkcs", "-R", "9:l:9", "-l", "u", "h"}, "h"},
		{[]string{"ssh", "--", "web1"}, "web1"},
		{[]string{"ssh", "ssh://admin@db.example.com:2222"}, "db.example.com"},
		{[]string{"ssh", "u@[fe80::1]"}, "fe80::1"},
		{[]string{"ssh", "fe80::1"}, "fe80::1"},
		{[]string{"ssh", "-p", "22"}, ""},
		{[]string{"ssh"}, ""},
		{[]string{"/nix/store/x-openssh/bin/.ssh-wrapped", "web1"}, "web1"},
		{[]string{"autossh", "-M", "0", "-N", "tunnel"}, "tunnel"},
		{[]string{"mosh", "--ssh", "ssh -p 2222", "u@devbox", "--", "tmux", "a"}, "devbox"},
		{[]string{"mosh", "--predict=always", "-p", "60001", "devbox"}, "devbox"},
		{[]string{"et", "-t", "8080:80", "u@devbox:8080"}, "devbox"},
		{[]string{"sshd", "-D"}, ""},
		{[]string{"scp", "f", "web1:"}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := host(tt.argv); got != tt.want {
			t.Errorf("SSHDestination(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
	// With Program: the destination survives looking through sudo.
	r := mustNew(t, Options{}, nil)
	p := r.Program(loadProcessInfo(t, "ssh"))
	if got := host(p.Argv); got != "web1" {
		t.Errorf("SSHDestination(Program(ssh fixture).Argv) = %q, want web1", got)
	}
}
