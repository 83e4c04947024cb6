package safefile

import (
	"os"
	"time"
)

// Stamp tells a rewritten file from an untouched one: size, modification
// time and inode (renameio writes a new file, and size and time alone can
// match within a clock tick). The zero Stamp is no file.
type Stamp struct {
	Size  int64
	MTime time.Time
	Inode uint64
}

// StampOf is the stamp of a file's info.
func StampOf(fi os.FileInfo) Stamp {
	return Stamp{Size: fi.Size(), MTime: fi.ModTime(), Inode: Inode(fi)}
}

// StampPath is the stamp of the file at path now (following a symlink),
// zero when there is none.
func StampPath(path string) Stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}
	}
	return StampOf(fi)
}
