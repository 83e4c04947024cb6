//go:build unix

package state

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// inode tells a replaced state file from the one we read (renameio writes
// a new file): size and mtime alone can match within a clock tick.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// writeFileAtomic replaces path in one rename, so a reader never sees half
// a file and a killed writer leaves the old one.
func writeFileAtomic(path string, b []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, b, perm, renameio.WithTempDir(filepath.Dir(path)))
}
