package herdr

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Env looks up an environment variable; os.LookupEnv in production, a map
// in tests.
type Env func(key string) (string, bool)

// ResolveSocketPath finds herdr's API socket the way herdr itself does
// (docs/herdr.md §2): an explicit path (our --socket flag) first, then
// HERDR_SOCKET_PATH verbatim (set inside every herdr pane; herdr honours an
// empty value, but an empty path can only fail, so we report it), then
// HERDR_SESSION, then the default socket under the config directory. On
// Windows the result is the path herdr derives its named pipe from
// (PipeName).
func ResolveSocketPath(explicit string, env Env) (string, error) {
	return resolveSocketPath(explicit, env, runtime.GOOS)
}

// resolveSocketPath is ResolveSocketPath for a given GOOS, so that the
// Windows rules are tested everywhere.
func resolveSocketPath(explicit string, env Env, goos string) (string, error) {
	join := filepath.Join
	if goos == "windows" {
		join = windowsJoin
	}
	if env == nil {
		env = os.LookupEnv
	}
	if explicit != "" {
		return explicit, nil
	}
	if p, ok := env("HERDR_SOCKET_PATH"); ok {
		if p == "" {
			return "", fmt.Errorf("HERDR_SOCKET_PATH is set but empty")
		}
		return p, nil
	}
	cfg := configDir(env, goos, join)
	if name, ok := env("HERDR_SESSION"); ok && name != "" && name != "default" {
		if err := ValidSessionName(name); err != nil {
			return "", fmt.Errorf("HERDR_SESSION: %w", err)
		}
		return join(cfg, "sessions", name, "herdr.sock"), nil
	}
	return join(cfg, "herdr.sock"), nil
}

// configDir is herdr's <CONFIG>: $XDG_CONFIG_HOME/herdr when the variable is
// set at all (even empty or relative, as herdr does), else
// $HOME/.config/herdr, else $TMPDIR/herdr. Windows tries %APPDATA% and
// %USERPROFILE%\AppData\Roaming before HOME (src/config/io.rs@v0.8.2).
func configDir(env Env, goos string, join func(...string) string) string {
	if x, ok := env("XDG_CONFIG_HOME"); ok {
		return join(x, "herdr")
	}
	if goos == "windows" {
		if a, ok := env("APPDATA"); ok {
			return join(a, "herdr")
		}
		if p, ok := env("USERPROFILE"); ok {
			return join(p, "AppData", "Roaming", "herdr")
		}
	}
	if h, ok := env("HOME"); ok && h != "" {
		// herdr joins ".config/herdr" as one piece, so on Windows the
		// path really has a forward slash in it; the pipe name must match.
		return join(h, ".config/herdr")
	}
	return join(tempDir(env, goos), "herdr")
}

// tempDir is Rust's std::env::temp_dir as herdr sees it: TMPDIR on Unix,
// TMP then TEMP on Windows.
func tempDir(env Env, goos string) string {
	keys, fallback := []string{"TMPDIR"}, "/tmp"
	if goos == "windows" {
		keys, fallback = []string{"TMP", "TEMP"}, `C:\Windows\Temp`
	}
	for _, k := range keys {
		if v, ok := env(k); ok && v != "" {
			return v
		}
	}
	return fallback
}

// windowsJoin joins the way Rust's PathBuf::push does on Windows: a
// backslash between parts unless the left one already ends in a separator,
// and nothing cleaned, because herdr cleans nothing either.
func windowsJoin(elems ...string) string {
	var b strings.Builder
	for i, e := range elems {
		if i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), `\`) && !strings.HasSuffix(b.String(), "/") {
			b.WriteByte('\\')
		}
		b.WriteString(e)
	}
	return b.String()
}

// ValidSessionName applies herdr's rule: 1-64 bytes of [A-Za-z0-9._-], and
// not "." or "..".
func ValidSessionName(name string) error {
	if name == "" || len(name) > 64 || name == "." || name == ".." {
		return fmt.Errorf("invalid herdr session name %q: want 1-64 characters of A-Z a-z 0-9 . _ -", name)
	}
	for _, r := range name {
		ok := r == '.' || r == '_' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return fmt.Errorf("invalid herdr session name %q: character %q is not allowed", name, r)
		}
	}
	return nil
}
