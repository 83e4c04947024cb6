package resident

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// dropFilePages unmaps the pages of every private read-only file
// mapping that holds no private copy (smaps Anonymous 0): the program's
// text and read-only data, shared libraries' code. A mapping with private
// copies (a library's relocated, then write-protected data) is left
// alone: dropping it would bring back the file's bytes.
func dropFilePages() {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return
	}
	for _, m := range droppable(b) {
		// The raw call: the range is not Go memory to take a slice of.
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED)
	}
}

// mapping is one address range of /proc/self/smaps.
type mapping struct{ start, end uintptr }

// droppable parses smaps and returns the mappings dropFilePages drops.
func droppable(smaps []byte) []mapping {
	var out []mapping
	var cur mapping
	candidate := false
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		switch {
		case len(f) >= 5 && bytes.IndexByte(f[0], '-') > 0 && len(f[1]) == 4:
			cur, candidate = parseRange(f[0])
			// Private, not writable, backed by a file (inode not 0).
			candidate = candidate && f[1][1] != 'w' && f[1][3] == 'p' && len(f) >= 6 && string(f[4]) != "0"
		case candidate && len(f) >= 2 && string(f[0]) == "Anonymous:":
			if string(f[1]) == "0" {
				out = append(out, cur)
			}
			candidate = false
		}
	}
	return out
}

// parseRange reads "start-end" in hex.
func parseRange(b []byte) (mapping, bool) {
	lo, hi, ok := bytes.Cut(b, []byte("-"))
	if !ok {
		return mapping{}, false
	}
	s, err1 := strconv.ParseUint(string(lo), 16, 64)
	e, err2 := strconv.ParseUint(string(hi), 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return mapping{}, false
	}
	return mapping{uintptr(s), uintptr(e)}, true
}
