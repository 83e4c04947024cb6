//go:build unix

package session

import (
	"fmt"
	"os"
	"syscall"
)

// ownedBy reports an error unless uid owns the file fi describes.
func ownedBy(path string, fi os.FileInfo, uid int) error {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Errorf("%s: owned by uid %d, not %d", path, st.Uid, uid)
	}
	return nil
}
