package procinfo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCleanName(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wrapped bool
	}{
		{"btop", "btop", false},
		{"/usr/bin/btop", "btop", false},
		{"-zsh", "zsh", false},
		{"/nix/store/x/bin/.nvim-wrapped", "nvim", true},
		{"nvim-wrapped", "nvim", true},
		{"foo-wrap", "foo", true},
		{"..foo-wrapped-wrapped", "foo", true},
		{"-", "-", false},
		{"...", "...", false},
		{"", "", false},
		{"wrapped", "wrapped", false},
		{"bin/", "", false},
	}
	for _, tt := range tests {
		got, wrapped := cleanName(tt.in)
		if got != tt.want || wrapped != tt.wrapped {
			t.Errorf("cleanName(%q) = %q, %v; want %q, %v", tt.in, got, wrapped, tt.want, tt.wrapped)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"vim foo", []string{"vim", "foo"}},
		{`git commit -m "a \"b\" c"`, []string{"git", "commit", "-m", `a "b" c`}},
		{`echo 'it''s'`, []string{"echo", "its"}},
		{`a\ b c`, []string{"a b", "c"}},
		{"A=1 B=2 make", []string{"make"}},
		{"cd x && make; ls", []string{"make"}},
		{"ls|wc -l", []string{"ls"}},
		{"make>log 2>&1", []string{"make"}},
		{"echo ${HOME}/x", []string{"echo", "${HOME}/x"}},
		{"{ make; }", []string{"make"}},
		{"! grep -q x f", []string{"grep", "-q", "x", "f"}},
		{"make # build", []string{"make"}},
		{"a#b", []string{"a#b"}},
		{"cd x\nmake", []string{"make"}},
		{"'unclosed", []string{"unclosed"}},
		{"", nil},
		{"export A=1", nil},
	}
	for _, tt := range tests {
		if got := splitCommand(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("splitCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNodeScriptName(t *testing.T) {
	tests := map[string]string{
		"script.js":                                       "script.js",
		"./dist/index.js":                                 "index.js",
		"/usr/local/bin/claude":                           "claude",
		"bin/www":                                         "www",
		".../vite/bin/vite.js":                            "vite",
		"/p/node_modules/.bin/vite":                       "vite",
		"/p/node_modules/vite/bin/vite.js":                "vite",
		"/p/node_modules/@vue/cli/bin/vue.js":             "vue",
		"/p/node_modules/@scope/pkg/dist/main.js":         "pkg",
		"/p/node_modules/next/dist/bin/next":              "next",
		"/usr/lib/node_modules/npm/bin/npm-cli.js":        "npm",
		"/usr/lib/node_modules/npm/bin/npx-cli.js":        "npx",
		"/p/node_modules/a/node_modules/b/lib/b.mjs":      "b",
		"/p/node_modules/":                                "",
		"/p/node_modules/prettier/bin/prettier.cjs":       "prettier",
		"/p/node_modules/typescript/lib/tsc.js":           "typescript",
		"/p/node_modules/@esbuild/linux-x64/bin/esbuild":  "esbuild",
		"/home/u/.bun/install/global/node_modules/x/y.ts": "x",
	}
	for in, want := range tests {
		if got := nodeScriptName(in); got != want {
			t.Errorf("nodeScriptName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackageNames(t *testing.T) {
	npm := map[string]string{
		"prettier": "prettier", "prettier@3": "prettier", "@biomejs/biome@1.9": "biome",
		"@angular/cli": "cli", "npm:left-pad@1": "left-pad", "github:user/repo": "repo",
		"git+https://github.com/u/tool.git": "tool",
	}
	for in, want := range npm {
		if got := npmPackageName(in); got != want {
			t.Errorf("npmPackageName(%q) = %q, want %q", in, got, want)
		}
	}
	py := map[string]string{"ruff": "ruff", "ruff@0.6": "ruff", "httpie[socks]>=3": "httpie", "black==24.1": "black"}
	for in, want := range py {
		if got := pyPackageName(in); got != want {
			t.Errorf("pyPackageName(%q) = %q, want %q", in, got, want)
		}
	}
	nix := map[string]string{
		"nixpkgs#btop": "btop", "nixpkgs#python3Packages.httpie": "httpie", "nixpkgs#btop^out": "btop",
		"github:owner/tool": "tool", ".": "", "./tools/gen": "gen", "nixpkgs/nixos-24.05#jq": "jq",
		"path:/srv/flake?dir=sub": "flake",
	}
	for in, want := range nix {
		if got := nixInstallableName(in); got != want {
			t.Errorf("nixInstallableName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOptSpecScan(t *testing.T) {
	spec := optSpec{short: "up", long: []string{"--user"}}
	type seen struct {
		opt string
		val string
	}
	tests := []struct {
		args    []string
		operand int
		seen    []seen
	}{
		{[]string{"cmd"}, 0, nil},
		{[]string{"-u", "root", "cmd"}, 2, []seen{{"u", "root"}}},
		{[]string{"-uroot", "cmd"}, 1, []seen{{"u", "root"}}},
		{[]string{"-Eu", "root", "cmd"}, 2, []seen{{"E", ""}, {"u", "root"}}},
		{[]string{"--user", "root", "cmd"}, 2, []seen{{"--user", "root"}}},
		{[]string{"--user=root", "cmd"}, 1, []seen{{"--user", "root"}}},
		{[]string{"--flag", "cmd"}, 1, []seen{{"--flag", ""}}},
		{[]string{"--", "-u"}, 1, nil},
		{[]string{"-", "x"}, 0, nil},
		{[]string{"-u"}, 1, []seen{{"u", ""}}},
		{nil, 0, nil},
	}
	for _, tt := range tests {
		var got []seen
		i, _ := spec.scan(tt.args, func(s byte, l, v string) bool {
			if s != 0 {
				l = string(s)
			}
			got = append(got, seen{l, v})
			return true
		})
		if i != tt.operand || !slices.Equal(got, tt.seen) {
			t.Errorf("scan(%q) = %d %v, want %d %v", tt.args, i, got, tt.operand, tt.seen)
		}
	}
	// Stopping early reports where.
	i, stopped := spec.scan([]string{"-E", "-p", "x", "-u", "y"}, func(s byte, _, _ string) bool { return s != 'p' })
	if i != 2 || !stopped {
		t.Errorf("stopped scan = %d %v, want 2 true", i, stopped)
	}
}

func TestParseTPGID(t *testing.T) {
	tests := []struct {
		file    string
		want    int
		wantErr string
	}{
		{"zsh.txt", 4300, ""},
		{"comm_spaces_parens.txt", 4300, ""},
		{"comm_newline.txt", 4301, ""},
		{"no_tty.txt", 0, "no controlling terminal"},
		{"truncated.txt", 0, "fewer than 8 fields"},
		{"no_paren.txt", 0, "no ')' closing the command name"},
		{"bad_number.txt", 0, "tpgid (field 8) is not a number"},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", "stat", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseTPGID(data)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.file, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %d, %v; want %d", tt.file, got, err, tt.want)
		}
	}
}

func TestParseStat(t *testing.T) {
	tests := []struct {
		file string
		want Stat
	}{
		{"zsh.txt", Stat{Comm: "zsh", State: 'S', PPID: 4200, TTY: 34816, TPGID: 4300, StartTime: 53859}},
		{"no_tty.txt", Stat{Comm: "sleep", State: 'S', PPID: 9524, TPGID: -1, StartTime: 53859}},
		// The line stops before starttime: 0, not an error.
		{"comm_newline.txt", Stat{Comm: "x)\n) 7 8 (y", State: 'R', PPID: 4200, TTY: 34816, TPGID: 4301}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", "stat", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ParseStat(data); err != nil || got != tt.want {
			t.Errorf("%s: ParseStat = %+v, %v; want %+v", tt.file, got, err, tt.want)
		}
	}
}
