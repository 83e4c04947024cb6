package contrib

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// unit is a parsed systemd unit: section -> key -> values in order.
type unit map[string]map[string][]string

// parseUnit reads the unit file syntax (systemd.syntax(7)) strictly enough
// to catch a broken template: every line is a comment, a [Section] or a
// Key=value inside a section.
func parseUnit(t *testing.T, text string) unit {
	t.Helper()
	u := unit{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			section = line[1 : len(line)-1]
			u[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" || strings.ContainsAny(k, " \t") {
				t.Fatalf("unit line %d: %q is not Key=value inside a section", n, line)
			}
			u[section][k] = append(u[section][k], v)
		}
	}
	return u
}

// firstWord undoes quote.Systemd the way systemd splits ExecStart: a plain
// word up to a space, or a double-quoted word with C escapes; %% is %.
func firstWord(t *testing.T, s string) string {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		w, _, _ := strings.Cut(s, " ")
		return strings.ReplaceAll(w, "%%", "%")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return strings.ReplaceAll(b.String(), "%%", "%")
		case '\\':
			i++
			if i >= len(s) {
				t.Fatalf("ExecStart %q: escape at end", s)
			}
			switch s[i] {
			case 'x':
				v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
				if err != nil {
					t.Fatalf("ExecStart %q: bad \\x escape", s)
				}
				b.WriteByte(byte(v))
				i += 2
			case '"', '\\':
				b.WriteByte(s[i])
			default:
				t.Fatalf("ExecStart %q: unexpected escape \\%c", s, s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	t.Fatalf("ExecStart %q: unterminated quote", s)
	return ""
}

func TestSystemdUnit(t *testing.T) {
	tests := []struct {
		name, bin, execStart string
	}{
		{"plain", "/usr/bin/herdrtabrenamer", "/usr/bin/herdrtabrenamer run --apply --if-not-running"},
		{"nix store", "/nix/store/abc-herdrtabrenamer-1.0/bin/herdrtabrenamer", "/nix/store/abc-herdrtabrenamer-1.0/bin/herdrtabrenamer run --apply --if-not-running"},
		{"space", "/home/a b/bin/herdrtabrenamer", `"/home/a b/bin/herdrtabrenamer" run --apply --if-not-running`},
		{"specifier", "/opt/100%/herdrtabrenamer", `"/opt/100%%/herdrtabrenamer" run --apply --if-not-running`},
		{"dollar", "/opt/$HOME/herdrtabrenamer", `"/opt/$HOME/herdrtabrenamer" run --apply --if-not-running`},
		{"quote and backslash", `/opt/a"b\c`, `"/opt/a\"b\\c" run --apply --if-not-running`},
		{"newline", "/opt/a\nb", `"/opt/a\x0ab" run --apply --if-not-running`},
		{"unicode", "/home/zoë/herdrtabrenamer", `"/home/zoë/herdrtabrenamer" run --apply --if-not-running`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := parseUnit(t, SystemdUnit(tt.bin))
			want := map[string]map[string]string{
				"Unit": {"StartLimitIntervalSec": "60", "StartLimitBurst": "4"},
				"Service": {"ExecStart": tt.execStart, "ExecReload": "/bin/kill -HUP $MAINPID", "Restart": "on-failure", "RestartSec": "1",
					"NoNewPrivileges": "true", "ProtectSystem": "strict", "ProtectHome": "read-only", "PrivateTmp": "true",
					"StateDirectory": "herdrtabrenamer", "RuntimeDirectory": "herdrtabrenamer", "RuntimeDirectoryPreserve": "yes"},
				"Install": {"WantedBy": "default.target"},
			}
			for sec, kv := range want {
				for k, v := range kv {
					got := u[sec][k]
					if len(got) != 1 || got[0] != v {
						t.Errorf("[%s] %s = %q, want [%q]", sec, k, got, v)
					}
				}
			}
			if got := firstWord(t, u["Service"]["ExecStart"][0]); got != tt.bin {
				t.Errorf("ExecStart command reads back as %q, want %q", got, tt.bin)
			}
		})
	}
}

// TestSystemdSecurityExposure keeps the sandbox from eroding: systemd's
// own rating of the unit (9.4 "UNSAFE" before it was hardened, 1.2 now)
// must stay at or under 2.0.
func TestSystemdSecurityExposure(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd); exposure not rated")
	}
	path := filepath.Join(t.TempDir(), SystemdUnitName)
	if err := os.WriteFile(path, []byte(SystemdUnit("/usr/bin/herdrtabrenamer")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "security", "--offline=true", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "Overall exposure level for "+SystemdUnitName+": ")
	if !ok {
		t.Fatalf("no overall exposure level in:\n%s", out)
	}
	score, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	if score > 2.0 {
		t.Errorf("exposure %.1f, want at most 2.0:\n%s", score, out)
	}
}

func TestSystemdUnitImportEnvironmentHint(t *testing.T) {
	text := SystemdUnit("/bin/x")
	for _, want := range []string{"systemctl --user import-environment HERDR_SOCKET_PATH HERDR_SESSION"} {
		if !strings.Contains(text, want) {
			t.Errorf("unit lacks the hint %q", want)
		}
	}
}

// TestSystemdAnalyzeVerify lets systemd itself judge the unit, with a real
// executable at awkward paths; a missing one must be rejected, which shows
// the check has teeth.
func TestSystemdAnalyzeVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed; the unit's syntax is checked by TestSystemdUnit")
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		bin    string
		create bool
	}{
		{"plain", "bin/herdrtabrenamer", true},
		{"space percent dollar", "my bin%x/herdr$trn", true},
		{"missing", "nowhere/herdrtabrenamer", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bin := filepath.Join(dir, tt.bin)
			if tt.create {
				if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			unitDir := t.TempDir()
			path := filepath.Join(unitDir, SystemdUnitName)
			if err := os.WriteFile(path, []byte(SystemdUnit(bin)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(analyze, "verify", path).CombinedOutput()
			if tt.create && err != nil {
				t.Errorf("systemd-analyze verify: %v\n%s", err, out)
			}
			if !tt.create && err == nil {
				t.Errorf("systemd-analyze verify accepted a missing executable:\n%s", out)
			}
		})
	}
}

// plistValue decodes one plist value into Go values: string, bool,
// []any, map[string]any.
func plistValue(d *xml.Decoder, start xml.StartElement) (any, error) {
	switch start.Name.Local {
	case "string":
		var s string
		err := d.DecodeElement(&s, &start)
		return s, err
	case "true", "false":
		return start.Name.Local == "true", d.Skip()
	case "array":
		var out []any
		for {
			tok, err := nextElement(d)
			if err != nil || tok == nil {
				return out, err
			}
			v, err := plistValue(d, *tok)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	case "dict":
		out := map[string]any{}
		for {
			tok, err := nextElement(d)
			if err != nil || tok == nil {
				return out, err
			}
			if tok.Name.Local != "key" {
				return nil, fmt.Errorf("dict: want <key>, got <%s>", tok.Name.Local)
			}
			var k string
			if err := d.DecodeElement(&k, tok); err != nil {
				return nil, err
			}
			vt, err := nextElement(d)
			if err != nil || vt == nil {
				return nil, fmt.Errorf("dict: key %q has no value", k)
			}
			if out[k], err = plistValue(d, *vt); err != nil {
				return nil, err
			}
		}
	}
	return nil, fmt.Errorf("unknown plist element <%s>", start.Name.Local)
}

// nextElement returns the next start element, or nil at the end of the
// enclosing one.
func nextElement(d *xml.Decoder) (*xml.StartElement, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			return &tok, nil
		case xml.EndElement:
			return nil, nil
		}
	}
}

func parsePlist(t *testing.T, text string) map[string]any {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	root, err := nextElement(d)
	if err != nil || root == nil || root.Name.Local != "plist" {
		t.Fatalf("plist: no <plist> root: %v", err)
	}
	top, err := nextElement(d)
	if err != nil || top == nil {
		t.Fatalf("plist: empty: %v", err)
	}
	v, err := plistValue(d, *top)
	if err != nil {
		t.Fatalf("plist: %v", err)
	}
	// The rest must be well-formed too.
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("plist: %v", err)
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("plist: top value is %T, want a dict", v)
	}
	return m
}

func TestLaunchdPlist(t *testing.T) {
	tests := []struct {
		name, bin, home, logs string
	}{
		{"plain", "/usr/local/bin/herdrtabrenamer", "/Users/ann", "/Users/ann/Library/Logs/herdrtabrenamer.log"},
		{"trailing slash", "/usr/local/bin/herdrtabrenamer", "/Users/ann/", "/Users/ann/Library/Logs/herdrtabrenamer.log"},
		{"xml specials", "/Users/a&b/<bin>/\"h'.x", "/Users/a&b", "/Users/a&b/Library/Logs/herdrtabrenamer.log"},
		{"markup injection", "</string><string>evil", "/Users/x", "/Users/x/Library/Logs/herdrtabrenamer.log"},
		{"space and unicode", "/Users/zoë/my bin/herdrtabrenamer", "/Users/zoë", "/Users/zoë/Library/Logs/herdrtabrenamer.log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parsePlist(t, LaunchdPlist(tt.bin, tt.home))
			args, _ := p["ProgramArguments"].([]any)
			if want := []any{tt.bin, "run", "--apply", "--if-not-running"}; fmt.Sprint(args) != fmt.Sprint(want) || len(args) != len(want) {
				t.Errorf("ProgramArguments = %q, want %q", args, want)
			}
			keep, _ := p["KeepAlive"].(map[string]any)
			checks := []struct {
				key       string
				got, want any
			}{
				{"Label", p["Label"], LaunchdLabel},
				{"RunAtLoad", p["RunAtLoad"], true},
				{"KeepAlive.SuccessfulExit", keep["SuccessfulExit"], false},
				{"ProcessType", p["ProcessType"], "Background"},
				{"StandardOutPath", p["StandardOutPath"], tt.logs},
				{"StandardErrorPath", p["StandardErrorPath"], tt.logs},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s = %#v, want %#v", c.key, c.got, c.want)
				}
			}
		})
	}
}

// TestTemplatesFullyFilled guards against a placeholder added to a template
// without a replacement.
func TestTemplatesFullyFilled(t *testing.T) {
	for name, text := range map[string]string{
		"systemd": SystemdUnit("/bin/x"),
		"launchd": LaunchdPlist("/bin/x", "/Users/x"),
	} {
		// Placeholders are @UPPER@; systemd's @system-service is no placeholder.
		for _, f := range strings.Split(text, "@")[1:] {
			if f != "" && strings.Trim(f, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == "" {
				t.Errorf("%s: unreplaced placeholder @%s@ in:\n%s", name, f, text)
			}
		}
	}
}
