package rundir

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/atomicfile"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// Reload is the outcome of a running daemon's last configuration reload
// (SIGHUP). A refused reload leaves the daemon on its old configuration
// and is otherwise only in its log, so the daemon keeps this record in
// the runtime directory, where status reads it.
type Reload struct {
	PID   int       `json:"pid"` // the daemon that reloaded
	At    time.Time `json:"at"`
	Error string    `json:"error,omitempty"` // why it was refused; "" when it took effect
}

// maxReload bounds what is read of a record; a real one is a line.
const maxReload = 64 << 10

// ReloadPath is where the daemon of a herdr server keeps its Reload.
func ReloadPath(herdrSocket string) (string, error) {
	dir, err := Path()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, NudgeKey(herdrSocket)+".reload"), nil
}

// WriteReload replaces the record in one rename: a reader sees the old
// record or the new one, never part of one.
func WriteReload(herdrSocket string, r Reload) error {
	path, err := ReloadPath(herdrSocket)
	if err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("reload record: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("reload record %s: %w", path, err)
	}
	return nil
}

// ReadReload reads the record; with none the error wraps os.ErrNotExist.
func ReadReload(herdrSocket string) (Reload, error) {
	var r Reload
	path, err := ReloadPath(herdrSocket)
	if err != nil {
		return r, err
	}
	b, err := safefile.ReadFile(path, maxReload)
	if err != nil {
		return r, fmt.Errorf("reload record: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("reload record %s: %w", path, err)
	}
	return r, nil
}
