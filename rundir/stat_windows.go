//go:build windows

package rundir

import "os"

// owner: Windows FileInfo carries no owner; %TEMP% and the user's cache
// dir are per user already.
func owner(os.FileInfo) (int, bool) { return 0, false }

// devIno: no file id without another open; the server is named by its
// resolved path instead.
func devIno(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
