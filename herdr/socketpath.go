package herdr

import (
	"fmt"
	"os"
	"path/filepath"
)

// Env looks up an environment variable; os.LookupEnv in production, a map
// in tests.
type Env func(key string) (string, bool)

// ResolveSocketPath finds herdr's API socket the way herdr itself does
// (PROTOCOL.md §1): an explicit path (our --socket flag) first, then
// HERDR_SOCKET_PATH verbatim (set inside every herdr pane; herdr honours an
// empty value, but an empty path can only fail, so we report it), then
// HERDR_SESSION, then the default socket under the config directory.
func ResolveSocketPath(explicit string, env Env) (string, error) {
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
	cfg, err := configDir(env)
	if err != nil {
		return "", err
	}
	if name, ok := env("HERDR_SESSION"); ok && name != "" && name != "default" {
		if err := ValidSessionName(name); err != nil {
			return "", fmt.Errorf("HERDR_SESSION: %w", err)
		}
		return filepath.Join(cfg, "sessions", name, "herdr.sock"), nil
	}
	return filepath.Join(cfg, "herdr.sock"), nil
}

// configDir is herdr's <CONFIG>: $XDG_CONFIG_HOME/herdr when the variable is
// set at all (even empty or relative, as herdr does), else
// $HOME/.config/herdr, else $TMPDIR/herdr.
func configDir(env Env) (string, error) {
	if x, ok := env("XDG_CONFIG_HOME"); ok {
		return filepath.Join(x, "herdr"), nil
	}
	if h, ok := env("HOME"); ok && h != "" {
		return filepath.Join(h, ".config", "herdr"), nil
	}
	tmp, ok := env("TMPDIR")
	if !ok || tmp == "" {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "herdr"), nil
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
