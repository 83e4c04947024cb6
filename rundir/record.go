package rundir

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/atomicfile"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// The records a running daemon keeps in the runtime directory for status
// to read: one JSON value each, per herdr server, replaced whole.

// maxRecord bounds what is read of a record; a real one is a line or two.
const maxRecord = 64 << 10

// recordPath is where the daemon of a herdr server keeps its record of
// kind (the file's extension).
func recordPath(herdrSocket, kind string) (string, error) {
	dir, err := Path()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, NudgeKey(herdrSocket)+"."+kind), nil
}

// writeRecord replaces the record in one rename: a reader sees the old
// record or the new one, never part of one.
func writeRecord(herdrSocket, kind string, v any) error {
	path, err := recordPath(herdrSocket, kind)
	if err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s record: %w", kind, err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("%s record %s: %w", kind, path, err)
	}
	return nil
}

// readRecord reads the record into v; with none the error wraps
// os.ErrNotExist.
func readRecord(herdrSocket, kind string, v any) error {
	path, err := recordPath(herdrSocket, kind)
	if err != nil {
		return err
	}
	b, err := safefile.ReadFile(path, maxRecord)
	if err != nil {
		return fmt.Errorf("%s record: %w", kind, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s record %s: %w", kind, path, err)
	}
	return nil
}
