//go:build !windows

package atomicfile

import (
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// WriteFile replaces path with b, mode perm, in one rename.
func WriteFile(path string, b []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, b, perm, renameio.WithTempDir(filepath.Dir(path)))
}
