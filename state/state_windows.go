//go:build windows

package state

import (
	"os"
	"path/filepath"
)

// inode: Windows FileInfo carries no file id without another open, so
// size and mtime alone tell a replaced state file.
func inode(os.FileInfo) uint64 { return 0 }

// writeFileAtomic writes a temporary file beside path and renames it over
// path (MoveFileEx with MOVEFILE_REPLACE_EXISTING): renameio does not build
// on Windows. The temporary name matches removeTempLitter's pattern.
func writeFileAtomic(path string, b []byte, perm os.FileMode) error {
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
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
