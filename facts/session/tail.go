package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// fileState is what the Reader knows of one session file.
type fileState struct {
	fi    os.FileInfo // as of the last read
	high  int64       // offset just past the last whole line read
	found found
	used  uint64 // Reader.tick at the last use
}

// refresh brings the state of the session file p up to date and returns
// it. An unchanged file (same file, size and modification time) is not
// read; a grown one is read from where the last read stopped, or its last
// MaxRead bytes when more was appended; a shrunk or replaced one, or one
// rewritten in place, is read afresh from its last MaxRead bytes. What was
// found before stands unless newer lines say otherwise.
func (r *Reader) refresh(a agent, p string) (*found, error) {
	f, fi, err := safefile.OpenOwned(p, r.uid)
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
	from := max(st.high, fi.Size()-MaxRead)
	if need := int(fi.Size() - from); cap(r.buf) < need {
		r.buf = make([]byte, need)
	}
	buf := r.buf[:fi.Size()-from]
	n, err := f.ReadAt(buf, from)
	r.read.Add(int64(n))
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("session file %s: %w", p, err)
	}
	st.scan(a, buf[:n], from, from != st.high)
	st.fi = fi
	return &st.found, nil
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

// scan applies the lines of b, read at offset from, to st. A read that
// starts inside a line (jumped) drops that line's end. A last line without
// its newline may be half written: it counts if it decodes, and is read
// again next time.
func (st *fileState) scan(a agent, b []byte, from int64, jumped bool) {
	if jumped && from > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			st.high = from
			return
		}
		b, from = b[i+1:], from+int64(i)+1
	}
	done := 0
	for {
		i := bytes.IndexByte(b[done:], '\n')
		if i < 0 {
			break
		}
		a.apply(b[done:done+i], &st.found)
		done += i + 1
	}
	st.high = from + int64(done)
	if rest := bytes.TrimSpace(b[done:]); len(rest) > 0 && json.Valid(rest) {
		a.apply(rest, &st.found)
	}
}
