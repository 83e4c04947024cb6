package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile replaces path with b, mode perm, in one rename (MoveFileEx
// with MOVEFILE_REPLACE_EXISTING): renameio does not build on Windows.
func WriteFile(path string, b []byte, perm os.FileMode) error {
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
