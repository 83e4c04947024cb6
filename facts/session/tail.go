package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// fileState is what the Reader knows of one session file.
type fileState struct {
	fi   os.FileInfo // as of the last read
	high int64       // offset just past the last whole line read
	// low is where the first whole line read starts: every line from
	// low to high was read.
	low int64
	// mark is the file's last bytes before high, as read: a file that
	// grew with other bytes there was rewritten, not appended to.
	mark  []byte
	found found
	used  uint64 // Reader.tick at the last use
}

// markLen is how much of the file before high is kept to tell a rewrite
// from an append.
const markLen = 32

// refresh brings the state of the session file p up to date and returns
// it. An unchanged file (same file, size and modification time) is not
// read; a grown one is read from where the last read stopped, or its last
// MaxRead bytes when more was appended; a shrunk or replaced one, or one
// rewritten in place, is read afresh from its last MaxRead bytes. What was
// found before stands unless newer lines say otherwise. A grown file whose
// last bytes before the old end changed was rewritten in place, not
// appended to: it is read afresh too, a second read.
func (r *Reader) refresh(a agent, p, root string) (*found, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
	}
	// The file checked inside root, and no other: a folder on the way
	// swapped for a symlink since the check leads nowhere.
	f, fi, err := safefile.OpenOwnedBeneath(root, rel, r.uid)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
	}
	defer f.Close()
	r.tick++
	st := r.files[p]
	if st != nil && os.SameFile(st.fi, fi) && fi.Size() == st.fi.Size() && fi.ModTime().Equal(st.fi.ModTime()) {
		st.used = r.tick
		return &st.found, nil
	}
	if st == nil || !os.SameFile(st.fi, fi) || fi.Size() < st.high || fi.Size() == st.fi.Size() {
		st = &fileState{}
		r.keep(p, st)
	}
	st.used = r.tick
	if err := r.readOn(a, f, fi, st); err != nil {
		if !errors.Is(err, errRewritten) {
			return nil, fmt.Errorf("session file %s: %w", p, err)
		}
		st = &fileState{}
		r.keep(p, st)
		if err := r.readOn(a, f, fi, st); err != nil {
			return nil, fmt.Errorf("session file %s: %w", p, err)
		}
	}
	st.fi = fi
	st.found.window = ""
	if st.low > 0 {
		st.found.window = "its last " + sizeText(fi.Size()-st.low)
	}
	return &st.found, nil
}

// sizeText is n bytes as a person reads it: "256 KiB", "4.0 MiB".
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1<<10-1)>>10)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// errRewritten: the bytes before the last read's end are not what they
// were.
var errRewritten = errors.New("rewritten in place")

// readOn reads f from where st's last read stopped (or its last MaxRead
// bytes) and scans the lines. Reading on from the last end, it reads the
// mark before it too, and errs with errRewritten when that changed.
func (r *Reader) readOn(a agent, f *os.File, fi os.FileInfo, st *fileState) error {
	from := max(st.high, fi.Size()-r.window)
	check := 0
	if from == st.high && len(st.mark) > 0 && fi.Size()-from+int64(len(st.mark)) <= r.window {
		check = len(st.mark)
	}
	start := from - int64(check)
	if need := int(fi.Size() - start); cap(r.buf) < need {
		r.buf = make([]byte, need)
	}
	buf := r.buf[:fi.Size()-start]
	n, err := f.ReadAt(buf, start)
	r.read.Add(int64(n))
	if err != nil && err != io.EOF {
		return err
	}
	if check > 0 && (n < check || !bytes.Equal(buf[:check], st.mark)) {
		return errRewritten
	}
	prev := st.high
	low := st.scan(a, buf[check:n], from, from != st.high)
	st.remark(buf[:n], start, prev)
	if prev == 0 {
		st.low = low
		return r.readBack(a, f, st)
	}
	return nil
}

// maxBack is how far from its end a file read afresh is read, at most,
// when its last MaxRead bytes do not settle the title: a session renamed
// long ago still has its name after the daemon starts, and explain tells
// the name the running daemon shows.
const maxBack = 4 << 20

// readBack reads f on backwards from st.low, MaxRead bytes at a time,
// while what was read does not settle the title (found.settled) and
// until maxBack bytes from the end, and puts what the older lines say
// under what the newer said.
func (r *Reader) readBack(a agent, f *os.File, st *fileState) error {
	end := st.high
	if cap(r.buf) < int(r.window) {
		r.buf = make([]byte, r.window)
	}
	for st.low > 0 && end-st.low < r.back && !st.found.settled() {
		n := min(st.low, r.window, r.back-(end-st.low))
		start := st.low - n
		buf := r.buf[:n]
		got, err := f.ReadAt(buf, start)
		r.read.Add(int64(got))
		if err != nil && err != io.EOF {
			return err
		}
		if int64(got) < n {
			return nil // shrunk meanwhile: the next read starts afresh
		}
		var older found
		low := scanLines(a, buf, start, &older)
		if low >= st.low {
			// No line starts and ends in buf: the one it is part of is
			// longer than a read, and left unread.
			low = start
		}
		st.low = low
		st.found.under(&older)
	}
	st.found.trim()
	return nil
}

// scanLines applies to f the whole lines of b, read at offset start, that
// end in b: a line b starts inside of (start > 0) is left to a read of
// the bytes before. It returns where the first line applied starts, start
// itself when b holds no line break.
func scanLines(a agent, b []byte, start int64, f *found) int64 {
	first := 0
	if start > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return start
		}
		first = i + 1
	}
	a.applyLines(b[first:], f)
	return start + int64(first)
}

// remark keeps the last markLen bytes before st.high: from b, read at
// offset start, after the old mark when the read started right at the
// last end (prev).
func (st *fileState) remark(b []byte, start, prev int64) {
	end := st.high - start
	if end < 0 || end > int64(len(b)) {
		st.mark = nil
		return
	}
	kept := b[:end]
	if start == prev {
		kept = append(append([]byte(nil), st.mark...), kept...)
	}
	st.mark = append([]byte(nil), kept[max(0, len(kept)-markLen):]...)
}

// keep stores st as p's state, dropping the least recently used file's
// when there are too many.
func (r *Reader) keep(p string, st *fileState) {
	if _, ok := r.files[p]; !ok && len(r.files) >= maxFiles {
		oldest := ""
		for k, v := range r.files {
			if oldest == "" || v.used < r.files[oldest].used {
				oldest = k
			}
		}
		delete(r.files, oldest)
	}
	r.files[p] = st
}

// scan applies the lines of b, read at offset from, to st, and returns
// where the first whole line starts. A read that starts inside a line
// (jumped) drops that line's end. A last line without its newline may be
// half written: it counts if it decodes, and is read again next time.
func (st *fileState) scan(a agent, b []byte, from int64, jumped bool) int64 {
	if jumped && from > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			st.high = from
			return from
		}
		b, from = b[i+1:], from+int64(i)+1
	}
	done := bytes.LastIndexByte(b, '\n') + 1
	a.applyLines(b[:done], &st.found)
	st.high = from + int64(done)
	if rest := bytes.TrimSpace(b[done:]); len(rest) > 0 && json.Valid(rest) {
		a.apply(rest, &st.found)
	}
	st.found.trim()
	return from
}

// tailRead reads a JSON-lines session file from its end.
func tailRead(r *Reader, a agent, p, root string, _ Ref) (*found, error) {
	return r.refresh(a, p, root)
}
