//go:build unix

package state

import (
	"os"
	"syscall"
)

// inode tells a replaced state file from the one we read (renameio writes
// a new file): size and mtime alone can match within a clock tick.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
