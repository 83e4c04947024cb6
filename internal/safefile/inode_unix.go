//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// Inode is a file's inode number, 0 where the info has none.
func Inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
