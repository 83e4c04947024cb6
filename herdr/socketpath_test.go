package herdr

import (
	"strings"
	"testing"
)

func mapEnv(m map[string]string) Env {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// TestResolveSocketPath has one row per rule of docs/herdr.md §2 (our
// --socket flag stands in for herdr's --session flag at the top).
func TestResolveSocketPath(t *testing.T) {
	home := map[string]string{"HOME": "/home/u"}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{"HOME": "/home/u"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name     string
		explicit string
		env      map[string]string
		want     string
		wantErr  string
	}{
		{"explicit flag wins over everything", "/run/x.sock", with(map[string]string{"HERDR_SOCKET_PATH": "/a", "HERDR_SESSION": "s", "XDG_CONFIG_HOME": "/x"}), "/run/x.sock", ""},
		{"HERDR_SOCKET_PATH verbatim", "", with(map[string]string{"HERDR_SOCKET_PATH": "rel/odd path.sock"}), "rel/odd path.sock", ""},
		{"HERDR_SOCKET_PATH beats HERDR_SESSION", "", with(map[string]string{"HERDR_SOCKET_PATH": "/a.sock", "HERDR_SESSION": "work"}), "/a.sock", ""},
		{"HERDR_SOCKET_PATH empty is not ignored", "", with(map[string]string{"HERDR_SOCKET_PATH": "", "HERDR_SESSION": "work"}), "", "HERDR_SOCKET_PATH is set but empty"},
		{"HERDR_SESSION names a session", "", with(map[string]string{"HERDR_SESSION": "work.2_a-b"}), "/home/u/.config/herdr/sessions/work.2_a-b/herdr.sock", ""},
		{"HERDR_SESSION default is the default socket", "", with(map[string]string{"HERDR_SESSION": "default"}), "/home/u/.config/herdr/herdr.sock", ""},
		{"HERDR_SESSION empty is the default socket", "", with(map[string]string{"HERDR_SESSION": ""}), "/home/u/.config/herdr/herdr.sock", ""},
		{"HERDR_SESSION with a slash", "", with(map[string]string{"HERDR_SESSION": "a/b"}), "", `HERDR_SESSION: invalid herdr session name "a/b": character '/' is not allowed`},
		{"HERDR_SESSION dot-dot", "", with(map[string]string{"HERDR_SESSION": ".."}), "", `invalid herdr session name ".."`},
		{"HERDR_SESSION 65 bytes", "", with(map[string]string{"HERDR_SESSION": strings.Repeat("a", 65)}), "", "invalid herdr session name"},
		{"HERDR_SESSION 64 bytes", "", with(map[string]string{"HERDR_SESSION": strings.Repeat("a", 64)}), "/home/u/.config/herdr/sessions/" + strings.Repeat("a", 64) + "/herdr.sock", ""},
		{"nothing: HOME config", "", home, "/home/u/.config/herdr/herdr.sock", ""},
		{"XDG_CONFIG_HOME set", "", with(map[string]string{"XDG_CONFIG_HOME": "/xdg"}), "/xdg/herdr/herdr.sock", ""},
		{"XDG_CONFIG_HOME with a session", "", with(map[string]string{"XDG_CONFIG_HOME": "/xdg", "HERDR_SESSION": "s"}), "/xdg/herdr/sessions/s/herdr.sock", ""},
		{"XDG_CONFIG_HOME empty is honoured", "", with(map[string]string{"XDG_CONFIG_HOME": ""}), "herdr/herdr.sock", ""},
		{"XDG_CONFIG_HOME relative is honoured", "", with(map[string]string{"XDG_CONFIG_HOME": "cfg"}), "cfg/herdr/herdr.sock", ""},
		{"HOME unset: TMPDIR", "", map[string]string{"TMPDIR": "/var/tmp"}, "/var/tmp/herdr/herdr.sock", ""},
		{"HOME and TMPDIR unset", "", map[string]string{}, "/tmp/herdr/herdr.sock", ""},
		{"XDG_RUNTIME_DIR is not used", "", with(map[string]string{"XDG_RUNTIME_DIR": "/run/user/1"}), "/home/u/.config/herdr/herdr.sock", ""},
		{"HERDR_CONFIG_PATH moves only the config file", "", with(map[string]string{"HERDR_CONFIG_PATH": "/etc/h.toml"}), "/home/u/.config/herdr/herdr.sock", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveSocketPath(tt.explicit, mapEnv(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestResolveSocketPathWindows checks herdr's Windows rules
// (src/config/io.rs@v0.8.2): the resulting path is what the named pipe
// name is made from, so it must match herdr's byte for byte.
func TestResolveSocketPathWindows(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"APPDATA", map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`, "USERPROFILE": `C:\Users\me`, "HOME": `C:\h`}, `C:\Users\me\AppData\Roaming\herdr\herdr.sock`},
		{"APPDATA with a trailing separator", map[string]string{"APPDATA": `C:\R\`}, `C:\R\herdr\herdr.sock`},
		{"USERPROFILE", map[string]string{"USERPROFILE": `C:\Users\me`, "HOME": `C:\h`}, `C:\Users\me\AppData\Roaming\herdr\herdr.sock`},
		{"HOME keeps herdr's forward slash", map[string]string{"HOME": `C:\h`}, `C:\h\.config/herdr\herdr.sock`},
		{"XDG_CONFIG_HOME first", map[string]string{"XDG_CONFIG_HOME": `D:\cfg`, "APPDATA": `C:\R`}, `D:\cfg\herdr\herdr.sock`},
		{"session", map[string]string{"APPDATA": `C:\R`, "HERDR_SESSION": "work"}, `C:\R\herdr\sessions\work\herdr.sock`},
		{"HERDR_SOCKET_PATH verbatim", map[string]string{"APPDATA": `C:\R`, "HERDR_SOCKET_PATH": `C:/x/../h.sock`}, `C:/x/../h.sock`},
		{"nothing: TMP", map[string]string{"TMP": `C:\T`, "TEMP": `C:\U`}, `C:\T\herdr\herdr.sock`},
		{"nothing at all", map[string]string{}, `C:\Windows\Temp\herdr\herdr.sock`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveSocketPath("", mapEnv(tt.env), "windows")
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if pipe := PipeName(got); pipe != `\\.\pipe\`+tt.want {
				t.Errorf("pipe %q", pipe)
			}
		})
	}
}
