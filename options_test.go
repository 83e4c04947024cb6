package main

import (
	"bytes"
	"errors"
	"github.com/herdrtabrenamer/herdrtabrenamer/setup"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// fakeEnv is a runEnv of a made-up process: vars is its environment and
// home its home directory ("" for none), so options are built without
// reading or changing the test's own environment.
func fakeEnv(vars map[string]string, home string, cf *config.File) *runEnv {
	return &runEnv{
		stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, config: cf,
		lookupEnv: func(k string) (string, bool) {
			v, ok := vars[k]
			return v, ok
		},
		userHome: func() (string, error) {
			if home == "" {
				return "", errors.New("$HOME is not defined")
			}
			return home, nil
		},
	}
}

// namingDefaults are the naming flags as kong fills them when none is given.
func namingDefaults() setup.NamingFlags {
	return setup.NamingFlags{Format: "{proc|dir}", MaxLen: 24, State: "auto"}
}

// programOf is the name opt's resolver gives the program argv runs in
// front of a pane.
func programOf(opt daemon.Options, argv ...string) string {
	return opt.Naming.Procs.Program(herdr.ProcessInfo{
		ShellPID: 10, ForegroundPGID: 20,
		ForegroundProcesses: []herdr.Process{{PID: 20, Argv: argv}},
	}).Name
}

// stateFile is where --state auto keeps the state of the herdr at sock.
func stateFile(dir, sock string) string {
	return filepath.Join(dir, "herdrtabrenamer", rundir.Key(sock)+".json")
}

// optionsCase is one way to build options. In config and wantErr,
// CONFIG stands for the config file's path.
type optionsCase struct {
	name   string
	flags  func(*setup.NamingFlags)
	socket string            // --socket
	vars   map[string]string // the environment; HERDR_SOCKET_PATH=/run/h.sock when nil
	home   string            // "" for none
	config string            // the config file's text; "" for none
	// glyphs replaces the file's [glyphs], which loading checks, to reach
	// the constructor's own check.
	glyphs  map[string]string
	check   func(t *testing.T, opt daemon.Options)
	wantErr string
}

var optionsCases = []optionsCase{
	{name: "defaults", home: "/home/u", check: func(t *testing.T, o daemon.Options) {
		c := o.Naming.Namer.Config()
		if c.Format != "{proc|dir}" || c.MaxLen != 24 || c.Icons != "" || c.Home != "/home/u" || len(c.Rules) != 0 {
			t.Errorf("namer config %+v", c)
		}
		if o.Socket != "/run/h.sock" || o.Naming.Workspace != "" || o.Naming.WorkspaceNamer != nil || o.Naming.Force || o.Naming.Unique || o.Naming.IndexPrefixAll {
			t.Errorf("options %+v", o)
		}
		if o.StatePath != stateFile("/home/u/.local/state", "/run/h.sock") {
			t.Errorf("state %q, want it under ~/.local/state", o.StatePath)
		}
		if got := programOf(o, "/usr/bin/nvim", "x"); got != "nvim" {
			t.Errorf("program %q, want nvim", got)
		}
		if o.Naming.Glyphs.Lookup("nvim") == "" || o.Log == nil || o.Out == nil || o.Naming.Git == nil || o.Naming.SSH == nil || o.Naming.Inspector == nil {
			t.Errorf("options lack a part: %+v", o)
		}
	}},
	{name: "naming flags", home: "/home/u", flags: func(f *setup.NamingFlags) {
		f.Format, f.MaxLen, f.Icons, f.Workspace = "{dir}", 0, "idle=z", "w2"
		f.Force, f.Unique, f.IndexPrefixAll, f.HideDefaultBranch = true, true, true, true
		f.WorkspaceFormat, f.Ignore, f.ExtendIgnore = "{index} {dir}", []string{}, []string{"make"}
	}, check: func(t *testing.T, o daemon.Options) {
		c := o.Naming.Namer.Config()
		if c.Format != "{dir}" || c.MaxLen != 0 || c.Icons != "idle=z" || !c.HideDefaultBranch ||
			len(c.Ignore) != 0 || strings.Join(c.ExtendIgnore, ",") != "make" {
			t.Errorf("namer config %+v", c)
		}
		if o.Naming.WorkspaceNamer == nil || o.Naming.WorkspaceNamer.Config().Format != "{index} {dir}" || o.Naming.WorkspaceNamer.Config().MaxLen != 0 {
			t.Errorf("workspace namer %+v", o.Naming.WorkspaceNamer)
		}
		if o.Naming.PaneNamer != nil {
			t.Errorf("pane namer without --pane-format: %+v", o.Naming.PaneNamer.Config())
		}
		if o.Naming.Workspace != "w2" || !o.Naming.Force || !o.Naming.Unique || !o.Naming.IndexPrefixAll {
			t.Errorf("options %+v", o)
		}
	}},
	{name: "pane-format", home: "/home/u", config: "[[rules]]\ndir = \"~/docs\"\npane-format = \"doc {agent}\"\n",
		flags: func(f *setup.NamingFlags) { f.PaneFormat = "{agent|proc}" }, check: func(t *testing.T, o daemon.Options) {
			c := o.Naming.PaneNamer.Config()
			if c.Format != "{agent|proc}" || !c.Panes || len(c.Rules) != 1 || c.Rules[0].PaneFormat != "doc {agent}" {
				t.Errorf("pane namer config %+v", c)
			}
		}},
	{name: "aliases", home: "/home/u", flags: func(f *setup.NamingFlags) { f.Alias = "nvim=vim, htop = top" }, check: func(t *testing.T, o daemon.Options) {
		if got := programOf(o, "nvim"); got != "vim" {
			t.Errorf("nvim shows as %q, want vim", got)
		}
		if got := programOf(o, "htop", "-d", "5"); got != "top" {
			t.Errorf("htop shows as %q, want top", got)
		}
	}},
	{name: "config file rules, rewrites and glyphs", home: "/home/u",
		config: "[[rules]]\ndir = \"~/src\"\nname = \"src\"\n\n[[rewrites]]\nmatch = \"^nvim$\"\nreplace = \"ed\"\n\n[glyphs]\ned = \"E\"\n",
		check: func(t *testing.T, o daemon.Options) {
			if c := o.Naming.Namer.Config(); len(c.Rules) != 1 || c.Rules[0].Name != "src" {
				t.Errorf("rules %+v", c.Rules)
			}
			if got := programOf(o, "nvim"); got != "ed" {
				t.Errorf("nvim shows as %q, want ed", got)
			}
			if got := o.Naming.Glyphs.Lookup("ed"); got != "E" {
				t.Errorf("glyph of ed %q, want E", got)
			}
		}},
	{name: "state under XDG_STATE_HOME", home: "/home/u",
		vars: map[string]string{"HERDR_SOCKET_PATH": "/run/h.sock", "XDG_STATE_HOME": "/xdg/state"},
		check: func(t *testing.T, o daemon.Options) {
			if o.StatePath != stateFile("/xdg/state", "/run/h.sock") {
				t.Errorf("state %q, want it under $XDG_STATE_HOME", o.StatePath)
			}
		}},
	{name: "empty XDG_STATE_HOME is unset", home: "/home/u",
		vars: map[string]string{"HERDR_SOCKET_PATH": "/run/h.sock", "XDG_STATE_HOME": ""},
		check: func(t *testing.T, o daemon.Options) {
			if o.StatePath != stateFile("/home/u/.local/state", "/run/h.sock") {
				t.Errorf("state %q, want it under ~/.local/state", o.StatePath)
			}
		}},
	{name: "state per herdr server", socket: "/run/other.sock", vars: map[string]string{"XDG_STATE_HOME": "/s"},
		check: func(t *testing.T, o daemon.Options) {
			if o.StatePath != stateFile("/s", "/run/other.sock") || o.StatePath == stateFile("/s", "/run/h.sock") {
				t.Errorf("state %q, want one of its own for /run/other.sock", o.StatePath)
			}
		}},
	{name: "state named", flags: func(f *setup.NamingFlags) { f.State = "/tmp/s.json" }, check: func(t *testing.T, o daemon.Options) {
		if o.StatePath != "/tmp/s.json" {
			t.Errorf("state %q", o.StatePath)
		}
	}},
	{name: "no state, no home needed", flags: func(f *setup.NamingFlags) { f.State = "" }, check: func(t *testing.T, o daemon.Options) {
		if o.StatePath != "" || o.Naming.Namer.Config().Home != "" {
			t.Errorf("state %q, home %q", o.StatePath, o.Naming.Namer.Config().Home)
		}
	}},
	{name: "--socket beats HERDR_SOCKET_PATH", socket: "/run/flag.sock", flags: func(f *setup.NamingFlags) { f.State = "" },
		check: func(t *testing.T, o daemon.Options) {
			if o.Socket != "/run/flag.sock" {
				t.Errorf("socket %q", o.Socket)
			}
		}},
	{name: "socket of a named session", flags: func(f *setup.NamingFlags) { f.State = "" },
		vars: map[string]string{"HERDR_SESSION": "work", "XDG_CONFIG_HOME": "/cfg"},
		check: func(t *testing.T, o daemon.Options) {
			if o.Socket != filepath.Join("/cfg", "herdr", "sessions", "work", "herdr.sock") {
				t.Errorf("socket %q", o.Socket)
			}
		}},
	{name: "socket in herdr's config dir", flags: func(f *setup.NamingFlags) { f.State = "" },
		vars: map[string]string{"HOME": "/home/v"},
		check: func(t *testing.T, o daemon.Options) {
			if o.Socket != filepath.Join("/home/v", ".config", "herdr", "herdr.sock") {
				t.Errorf("socket %q", o.Socket)
			}
		}},

	{name: "empty HERDR_SOCKET_PATH", vars: map[string]string{"HERDR_SOCKET_PATH": ""}, wantErr: "HERDR_SOCKET_PATH is set but empty"},
	{name: "bad HERDR_SESSION", vars: map[string]string{"HERDR_SESSION": "a/b"}, wantErr: "HERDR_SESSION: "},
	{name: "bad workspace", flags: func(f *setup.NamingFlags) { f.Workspace = "t1" }, wantErr: `--workspace: invalid workspace id "t1"`},
	{name: "negative max-len", flags: func(f *setup.NamingFlags) { f.MaxLen = -1 }, wantErr: "--max-len: -1 is negative"},
	{name: "bad format", flags: func(f *setup.NamingFlags) { f.Format = "{proc" }, wantErr: "format: "},
	{name: "bad icons", flags: func(f *setup.NamingFlags) { f.Icons = "idle" }, wantErr: `icons "idle": entry "idle" has no '='`},
	{name: "bad ignore", flags: func(f *setup.NamingFlags) { f.Ignore = []string{"ls", ""} }, wantErr: "--ignore: entry 2: "},
	{name: "bad extend-ignore", flags: func(f *setup.NamingFlags) { f.ExtendIgnore = []string{""} }, wantErr: "--extend-ignore: entry 1: "},
	{name: "bad rule in the file", config: "# a rule\n\n[[rules]]\nname = \"x\"\n", wantErr: "CONFIG:3: rule 1: needs dir or program"},
	{name: "bad workspace-format flag", flags: func(f *setup.NamingFlags) { f.WorkspaceFormat = "{nope}" }, wantErr: "workspace-format: "},
	{name: "bad workspace-format in the file", config: "workspace-format = \"{nope}\"\n",
		flags: func(f *setup.NamingFlags) { f.WorkspaceFormat = "{nope}" }, wantErr: "CONFIG:1: workspace-format: "},
	{name: "bad pane-format flag", flags: func(f *setup.NamingFlags) { f.PaneFormat = "{nope}" }, wantErr: "pane-format: "},
	{name: "bad pane-format in the file", config: "pane-format = \"{nope}\"\n",
		flags: func(f *setup.NamingFlags) { f.PaneFormat = "{nope}" }, wantErr: "CONFIG:1: pane-format: "},
	{name: "bad rule pane-format in the file", config: "[[rules]]\ndir = \"/a\"\npane-format = \"{x\"\n",
		wantErr: "CONFIG:1: rule 1 (pane-format): "},
	{name: "a rule's pane-format with pane names off", config: "pane-format = \"\"\n\n[[rules]]\ndir = \"/a\"\nformat = \"a\"\n\n[[rules]]\ndir = \"/b\"\npane-format = \"{agent}\"\n",
		wantErr: `CONFIG:7: rule 2 (pane-format "{agent}"): names no pane: pane names are off`},
	{name: "bad sidebar token", flags: func(f *setup.NamingFlags) { f.SidebarTokens = []string{"task", "token.x"} }, wantErr: `--sidebar-tokens: unknown token "token.x"`},
	{name: "sidebar tokens", flags: func(f *setup.NamingFlags) { f.State, f.SidebarTokens = "", []string{"task", "branch"} },
		check: func(t *testing.T, o daemon.Options) {
			if o.Naming.Sidebar == nil || strings.Join(o.Naming.SidebarTokens, ",") != "task,branch" {
				t.Errorf("sidebar %v, tokens %q", o.Naming.Sidebar, o.Naming.SidebarTokens)
			}
		}},
	{name: "bad alias", flags: func(f *setup.NamingFlags) { f.Alias = "nvim" }, wantErr: `--alias: alias "nvim": entry 1 "nvim" has no '='`},
	{name: "bad rewrite in the file", config: "[[rules]]\ndir = \"/a\"\nname = \"a\"\n[[rewrites]]\nmatch = \"(\"\n",
		wantErr: "CONFIG:4: rewrite rule 1: bad match"},
	{name: "bad glyph", home: "/home/u", glyphs: map[string]string{"a b": "x"}, wantErr: `glyphs: "a b" is no program name`},
	{name: "state auto without XDG_STATE_HOME or home", wantErr: "--state auto needs $XDG_STATE_HOME or $HOME: $HOME is not defined"},
}

// TestNewOptions builds options from flags, a made-up environment and a
// config file, and checks each part; each bad input is a usage error on
// one line that names what is wrong and where.
func TestNewOptions(t *testing.T) {
	for _, tc := range optionsCases {
		t.Run(tc.name, func(t *testing.T) {
			opt, path, err := buildFromCase(t, tc)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				tc.check(t, opt)
				return
			}
			want := strings.ReplaceAll(tc.wantErr, "CONFIG", path)
			var ee *exitError
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, want)
			}
			if !errors.As(err, &ee) || ee.code != 2 {
				t.Fatalf("error %v is no usage error (exit 2)", err)
			}
		})
	}
}

// buildFromCase runs newOptions on tc; path is the config file's.
func buildFromCase(t *testing.T, tc optionsCase) (daemon.Options, string, error) {
	t.Helper()
	f := namingDefaults()
	if tc.flags != nil {
		tc.flags(&f)
	}
	vars := tc.vars
	if vars == nil {
		vars = map[string]string{"HERDR_SOCKET_PATH": "/run/h.sock"}
	}
	var cf *config.File
	path := ""
	if tc.config != "" || tc.glyphs != nil {
		path = writeConfig(t, tc.config)
		var err error
		if cf, err = config.Load(path, true); err != nil {
			t.Fatal(err)
		}
		if tc.glyphs != nil {
			cf.Glyphs = tc.glyphs
		}
	}
	opt, err := newOptions(&f, &Globals{Socket: tc.socket}, fakeEnv(vars, tc.home, cf))
	return opt, path, err
}
