package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// maxWhole is the largest session file read whole: the agents that keep
// a session's title in a file of its own (Kimi Code's state.json,
// Copilot's workspace.yaml, Grok's summary.json, ...) keep it small.
const maxWhole = 1 << 20

// errTooBig: a file that should be small is not.
var errTooBig = errors.New("larger than the bound")

// readWhole reads the small file p whole when it changed since the last
// read (another file, size or modification time) and decodes it with
// a.decode; an unchanged file is not read.
func readWhole(r *Reader, a agent, p, root string, _ Ref) (*found, error) {
	return r.readSmall(a, p, root, false)
}

// readHead is readWhole for a file whose first line holds the title and
// is rewritten in place (Droid's session_start): only that line is read,
// at most MaxRead bytes of it.
func readHead(r *Reader, a agent, p, root string, _ Ref) (*found, error) {
	return r.readSmall(a, p, root, true)
}

func (r *Reader) readSmall(a agent, p, root string, head bool) (*found, error) {
	f, fi, err := r.openBeneath(p, root)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r.tick++
	if st := r.files[p]; st != nil && os.SameFile(st.fi, fi) && fi.Size() == st.fi.Size() && fi.ModTime().Equal(st.fi.ModTime()) {
		st.used = r.tick
		return &st.found, nil
	}
	b, err := r.readStart(f, fi, head)
	if err != nil {
		return nil, fmt.Errorf("session file %s: %w", p, err)
	}
	st := &fileState{fi: fi, used: r.tick}
	if err := a.decode(b, &st.found); err != nil {
		// Not kept: a file caught half written is read again next time.
		return nil, fmt.Errorf("session file %s does not decode: %w", p, err)
	}
	st.found.trim()
	r.keep(p, st)
	return &st.found, nil
}

// readStart reads f whole (at most maxWhole bytes), or with head its
// first line (at most MaxRead bytes).
func (r *Reader) readStart(f *os.File, fi os.FileInfo, head bool) ([]byte, error) {
	bound := int64(maxWhole)
	if head {
		bound = MaxRead
	}
	if !head && fi.Size() > bound {
		return nil, fmt.Errorf("%d bytes, %w of %d", fi.Size(), errTooBig, bound)
	}
	n := min(fi.Size(), bound)
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	got, err := io.ReadFull(f, b)
	r.read.Add(int64(got))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	b = b[:got]
	if !head {
		return b, nil
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], nil
	}
	if int64(got) == bound && fi.Size() > bound {
		return nil, fmt.Errorf("first line %w of %d bytes", errTooBig, bound)
	}
	return b, nil
}

// openBeneath opens the resolved file p inside the resolved folder root
// through no symlink, a regular file the daemon's user owns.
func (r *Reader) openBeneath(p, root string) (*os.File, os.FileInfo, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return nil, nil, fmt.Errorf("session file: %w", err)
	}
	f, fi, err := safefile.OpenOwnedBeneath(root, rel, r.uid)
	if err != nil {
		return nil, nil, fmt.Errorf("session file: %w", err)
	}
	return f, fi, nil
}

// readCursor reads a Cursor chat's meta.json whole, or its store.db.
func readCursor(r *Reader, a agent, p, root string, ref Ref) (*found, error) {
	if isDatabase(p) {
		return readSQL(r, a, p, root, ref)
	}
	return readWhole(r, a, p, root, ref)
}

// readOpencode reads OpenCode's (or Kilo's) database, or a session's
// file of the JSON store older releases kept.
func readOpencode(r *Reader, a agent, p, root string, ref Ref) (*found, error) {
	if isDatabase(p) {
		return readSQL(r, a, p, root, ref)
	}
	return readWhole(r, a, p, root, ref)
}
