package procinfo

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

func TestRemoteCommand(t *testing.T) {
	tests := []struct {
		argv []string
		dest string
		cmd  []string
	}{
		{[]string{"ssh", "zmb"}, "zmb", nil},
		{[]string{"ssh", "zmb", "btop"}, "zmb", []string{"btop"}},
		{[]string{"ssh", "-p", "2222", "-J", "gate", "deploy@10.0.0.5"}, "deploy@10.0.0.5", nil},
		// Every value-taking letter of OpenSSH's getopt string, -P included.
		{[]string{"ssh", "-P", "tag", "-b", "a", "-c", "c", "-D", "1", "-E", "l", "-e", "~", "-F", "f", "-I", "p",
			"-i", "k", "-J", "j", "-L", "l", "-l", "u", "-m", "m", "-O", "check", "-o", "o", "-p", "2", "-Q", "q",
			"-R", "r", "-S", "s", "-W", "w", "-w", "0", "-B", "b", "h", "top"}, "h", []string{"top"}},
		// Flags that take no value do not eat the destination.
		{[]string{"ssh", "-1246afgknqstvxACGKMNTXYy", "h"}, "h", nil},
		{[]string{"ssh", "-V"}, "", nil},
		{[]string{"ssh", "-Q", "cipher"}, "", nil},
		// ssh parses options again after the destination.
		{[]string{"ssh", "zmb", "-t", "-p", "22", "tmux", "attach", "-t", "x"}, "zmb", []string{"tmux", "attach", "-t", "x"}},
		{[]string{"ssh", "--", "zmb", "-t", "x"}, "zmb", []string{"-t", "x"}},
		{[]string{"ssh", "zmb", "--", "ls", "-l"}, "zmb", []string{"ls", "-l"}},
		// The remote shell sees one string.
		{[]string{"ssh", "zmb", "cd /srv && sudo journalctl -f"}, "zmb", []string{"sudo", "journalctl", "-f"}},
		{[]string{"mosh", "--ssh=ssh -p 22", "zmb", "--", "htop"}, "zmb", []string{"htop"}},
		{[]string{"mosh", "zmb", "btop"}, "zmb", []string{"btop"}},
		// The client mosh execs once connected (mosh.pl: "-# @cmdline |").
		{[]string{"mosh-client", "-# --predict=always zmb btop |", "10.0.0.5", "60001"}, "zmb", []string{"btop"}},
		{[]string{"mosh-client", "-# zmb |", "10.0.0.5", "60001"}, "zmb", nil},
		{[]string{"mosh-client", "10.0.0.5", "60001"}, "", nil},
		{[]string{"et", "-c", "btop", "u@zmb:8080"}, "u@zmb:8080", []string{"btop"}},
		{[]string{"et", "zmb"}, "zmb", nil},
		{[]string{"autossh", "-M", "0", "-N", "tunnel"}, "tunnel", nil},
		{[]string{"scp", "a", "zmb:"}, "", nil},
		{nil, "", nil},
	}
	for _, tt := range tests {
		dest, cmd := remoteCommand(tt.argv)
		if dest != tt.dest || !slices.Equal(cmd, tt.cmd) {
			t.Errorf("remoteCommand(%q) = %q, %q; want %q, %q", tt.argv, dest, cmd, tt.dest, tt.cmd)
		}
	}
}

// fg is a process_info with one foreground program.
func fg(argv ...string) herdr.ProcessInfo {
	return herdr.ProcessInfo{ShellPID: 10, ForegroundPGID: 20,
		ForegroundProcesses: []herdr.Process{{PID: 20, Name: "x", Argv: argv}}}
}

func TestProgramRemoteAndArgs(t *testing.T) {
	tests := []struct {
		argv         []string
		name, args   string
		dest, remote string
		aliases      map[string]string
		rewrites     []RewriteSpec
	}{
		{argv: []string{"ssh", "zmb"}, name: "ssh", args: "ssh zmb", dest: "zmb"},
		{argv: []string{"/usr/bin/ssh", "zmb", "btop"}, name: "ssh", args: "ssh zmb btop", dest: "zmb", remote: "btop"},
		{argv: []string{"sudo", "ssh", "-p", "2222", "deploy@10.0.0.5", "sudo", "htop"}, name: "ssh",
			args: "ssh -p 2222 deploy@10.0.0.5 sudo htop", dest: "deploy@10.0.0.5", remote: "htop"},
		{argv: []string{"ssh", "zmb", "bash"}, name: "ssh", args: "ssh zmb bash", dest: "zmb"},
		{argv: []string{"ssh", "-V"}, name: "ssh", args: "ssh -V"},
		{argv: []string{"mosh", "zmb", "--", "btop"}, name: "mosh", args: "mosh zmb -- btop", dest: "zmb", remote: "btop"},
		{argv: []string{"et", "zmb:2022"}, name: "et", args: "et zmb:2022", dest: "zmb:2022"},
		{argv: []string{"mosh-client", "-# zmb htop |", "10.0.0.5", "60001"}, name: "mosh-client",
			args: `mosh-client "-# zmb htop |" 10.0.0.5 60001`, dest: "zmb", remote: "htop"},
		{argv: []string{"git", "log", "--oneline"}, name: "git", args: "git log --oneline"},
		{argv: []string{"sudo", "-u", "root", "env", "A=1", "/usr/bin/git", "log"}, name: "git", args: "git log"},
		{argv: []string{"git", "commit", "-m", "fix the bug"}, name: "git", args: `git commit -m "fix the bug"`},
		{argv: []string{"python3", "-m", "http.server", "8000"}, name: "http.server", args: "python3 -m http.server 8000"},
		{argv: []string{"node", "/p/node_modules/.bin/vite", "--port", "3000"}, name: "vite", args: "vite --port 3000"},
		{argv: []string{"npx", "prettier@3", "-w", "."}, name: "prettier", args: "prettier -w ."},
		{argv: []string{"/nix/store/x/bin/.nvim-wrapped", "a.go"}, name: "vim", args: "vim a.go", aliases: map[string]string{"nvim": "vim"}},
		{argv: []string{"python3.12", "x.py", "-v"}, name: "x.py", args: "x.py -v"}, // a script is the program
		{argv: []string{"btop"}, name: "b", args: "b", rewrites: []RewriteSpec{{Match: "^btop$", Replace: "b"}}},
	}
	for _, tt := range tests {
		r := mustNew(t, Options{Aliases: tt.aliases, Rewrites: tt.rewrites}, nil)
		p := r.Program(fg(tt.argv...))
		if p.Name != tt.name || p.Args != tt.args || p.Dest != tt.dest || p.Remote != tt.remote {
			t.Errorf("Program(%q) = name %q args %q dest %q remote %q; want %q %q %q %q",
				tt.argv, p.Name, p.Args, p.Dest, p.Remote, tt.name, tt.args, tt.dest, tt.remote)
		}
	}
	// An idle shell has no arguments to show.
	r := mustNew(t, Options{}, nil)
	if p := r.Program(herdr.ProcessInfo{ShellPID: 10, ForegroundPGID: 10}); p.Args != "" || p.Dest != "" {
		t.Errorf("idle shell: args %q dest %q, want both empty", p.Args, p.Dest)
	}
}

func TestArgsAreBounded(t *testing.T) {
	r := mustNew(t, Options{}, nil)
	long := strings.Repeat("é", 3000)
	p := r.Program(fg("echo", long, "more"))
	if len(p.Args) > maxArgs || !utf8.ValidString(p.Args) || !strings.HasPrefix(p.Args, "echo éé") {
		t.Errorf("Args of a huge argv: %d bytes, valid %v, %.12q", len(p.Args), utf8.ValidString(p.Args), p.Args)
	}
}
