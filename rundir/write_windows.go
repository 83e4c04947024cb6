//go:build windows

package rundir

import (
	"os"
	"path/filepath"
)

// writeAtomic writes a temporary file beside path and renames it over
// path (MoveFileEx with MOVEFILE_REPLACE_EXISTING): renameio does not
// build on Windows.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
