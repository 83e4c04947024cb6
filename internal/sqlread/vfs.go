package sqlread

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// SQLite opens the files beside a database by name, each with a plain
// open(2): its hot-journal check the -journal (read-only, which blocks on
// a FIFO until someone writes to it), a reader the -wal. Sidecars checks
// them first, but a file swapped in between would still be opened as it
// is. So databases are read through safeVFS: SQLite's own file access
// with every open made so that it cannot block. The journal is opened
// here, without blocking and only if it is a regular file of the
// daemon's user (a hot-journal check only reads its first bytes); the
// database and its -wal are first opened here the same way, refused
// unless they are such a file, then handed to SQLite's own file access
// (which keeps the locks and the -shm mapping that readers share with the
// agent's writer), never to be created. Nothing else is opened: no file
// is deleted, no journal written.

// safeVFSName is the VFS a database is opened with (its URI's vfs=).
const safeVFSName = "herdrtabrenamer-safe"

var registerVFS sync.Once

// useSafeVFS registers safeVFS once, on the first read of a database.
func useSafeVFS() {
	registerVFS.Do(func() {
		base, ok := vfs.Find("").(vfs.VFSFilename)
		if !ok {
			panic("sqlread: SQLite's default VFS opens no Filename")
		}
		vfs.Register(safeVFSName, safeVFS{base: base, uid: os.Getuid()})
	})
}

// safeVFS is SQLite's default VFS with every open checked first.
type safeVFS struct {
	base vfs.VFSFilename
	uid  int
}

func (v safeVFS) Open(name string, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	return nil, flags, sqlite3.CANTOPEN // OpenFilename is called instead
}

func (v safeVFS) OpenFilename(name *vfs.Filename, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	switch {
	case name == nil || name.String() == "":
		// A temporary file of SQLite's own, made by it, for a big sort.
		return v.base.OpenFilename(name, flags)
	case flags&vfs.OPEN_MAIN_JOURNAL != 0 && flags&vfs.OPEN_READONLY != 0:
		f, _, err := safefile.OpenOwned(name.String(), v.uid)
		if err != nil {
			return nil, flags, sqlite3.CANTOPEN
		}
		return journalFile{f}, flags, nil
	case flags&(vfs.OPEN_MAIN_DB|vfs.OPEN_WAL) != 0:
		f, _, err := safefile.OpenOwned(name.String(), v.uid)
		if err != nil {
			return nil, flags, sqlite3.CANTOPEN
		}
		f.Close()
		return v.base.OpenFilename(name, flags&^(vfs.OPEN_CREATE|vfs.OPEN_EXCLUSIVE))
	}
	// A journal to write, a super-journal: a reader has no use for them.
	return nil, flags, sqlite3.CANTOPEN
}

func (v safeVFS) Delete(string, bool) error { return sqlite3.IOERR_DELETE }

func (v safeVFS) Access(name string, flags vfs.AccessFlag) (bool, error) {
	return v.base.Access(name, flags)
}

func (v safeVFS) FullPathname(name string) (string, error) { return v.base.FullPathname(name) }

// journalFile is a rollback journal opened for SQLite's hot-journal
// check: read, never written or locked.
type journalFile struct{ f *os.File }

func (j journalFile) Close() error { return j.f.Close() }

func (j journalFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := j.f.ReadAt(p, off)
	if errors.Is(err, io.EOF) {
		return n, io.EOF
	}
	return n, err
}

func (j journalFile) WriteAt([]byte, int64) (int, error) { return 0, sqlite3.READONLY }
func (j journalFile) Truncate(int64) error               { return sqlite3.READONLY }
func (j journalFile) Sync(vfs.SyncFlag) error            { return sqlite3.READONLY }

func (j journalFile) Size() (int64, error) {
	fi, err := j.f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func (j journalFile) Lock(vfs.LockLevel) error                        { return nil }
func (j journalFile) Unlock(vfs.LockLevel) error                      { return nil }
func (j journalFile) CheckReservedLock() (bool, error)                { return false, nil }
func (j journalFile) SectorSize() int                                 { return 0 }
func (j journalFile) DeviceCharacteristics() vfs.DeviceCharacteristic { return 0 }
