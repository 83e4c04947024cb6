//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNonblock opens path with O_NONBLOCK, so that opening a FIFO with
// no writer returns at once; on a regular file the flag changes nothing.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
