package realherdr

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// screen is the little of a VT terminal that herdr's TUI client draws
// with: cursor moves, printing, erasing. ratatui writes only the cells that
// changed between frames, jumping the cursor between them, so a modal's
// title is found on the grid, never in the byte stream. Colours, modes and
// titles change nothing on the grid and are skipped; queries are answered
// by the caller through replies.
type screen struct {
	mu         sync.Mutex
	rows, cols int
	cells      [][]string // each cell a grapheme; "" is the tail of a wide one
	row, col   int
	savedRow   int
	savedCol   int
	state      parseState
	params     []byte // a CSI's parameter and intermediate bytes
	pending    []byte // an incomplete UTF-8 sequence
	replies    []byte // answers to the terminal queries seen
}

type parseState int

const (
	ground parseState = iota
	escape
	csi
	stringSeq // OSC, DCS, APC, PM, SOS: skipped up to ST or BEL
	stringEsc // ESC inside a string: ST if a backslash follows
	charset   // ESC ( and friends take one more byte
)

func newScreen(rows, cols int) *screen {
	s := &screen{rows: rows, cols: cols}
	s.erase(0, 0, rows-1, cols-1)
	return s
}

// Write feeds the client's output to the grid.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := append(s.pending, p...)
	s.pending = nil
	for len(b) > 0 {
		if s.state != ground || b[0] < 0x80 {
			s.byte(b[0])
			b = b[1:]
			continue
		}
		if !utf8.FullRune(b) {
			s.pending = append([]byte(nil), b...)
			break
		}
		r, n := utf8.DecodeRune(b)
		s.print(string(r))
		b = b[n:]
	}
	return len(p), nil
}

// takeReplies returns the answers owed to the queries seen so far.
func (s *screen) takeReplies() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.replies
	s.replies = nil
	return r
}

func (s *screen) byte(c byte) {
	switch s.state {
	case ground:
		s.control(c)
	case escape:
		s.escapeByte(c)
	case csi:
		if c >= 0x40 && c <= 0x7e {
			s.state = ground
			s.csiFinal(c)
			return
		}
		s.params = append(s.params, c)
	case stringSeq:
		switch c {
		case 0x07:
			s.state = ground
		case 0x1b:
			s.state = stringEsc
		}
	case stringEsc:
		s.state = stringSeq
		if c == '\\' {
			s.state = ground
		}
	case charset:
		s.state = ground
	}
}

func (s *screen) control(c byte) {
	switch c {
	case 0x1b:
		s.state = escape
	case '\r':
		s.col = 0
	case '\n', 0x0b, 0x0c:
		s.row = min(s.row+1, s.rows-1)
	case '\b':
		s.col = max(s.col-1, 0)
	default:
		if c >= 0x20 && c < 0x7f {
			s.print(string(rune(c)))
		}
	}
}

func (s *screen) escapeByte(c byte) {
	s.state = ground
	switch c {
	case '[':
		s.state, s.params = csi, s.params[:0]
	case ']', 'P', '_', '^', 'X':
		s.state = stringSeq
	case '(', ')', '*', '+', '#', '%':
		s.state = charset
	case '7':
		s.savedRow, s.savedCol = s.row, s.col
	case '8':
		s.row, s.col = s.savedRow, s.savedCol
	case 'c':
		s.erase(0, 0, s.rows-1, s.cols-1)
		s.row, s.col = 0, 0
	}
}

// csiFinal carries out one control sequence; private ones (modes, kitty
// keyboard flags) change nothing on the grid.
func (s *screen) csiFinal(final byte) {
	p := string(s.params)
	if p != "" && strings.ContainsAny(p[:1], "?<=>") {
		if final == 'c' || (final == 'u' && p == "?") {
			s.query(p, final)
		}
		return
	}
	n := csiNumbers(p)
	arg := func(i, def int) int {
		if i < len(n) && n[i] > 0 {
			return n[i]
		}
		return def
	}
	switch final {
	case 'H', 'f':
		s.row, s.col = clamp(arg(0, 1)-1, s.rows), clamp(arg(1, 1)-1, s.cols)
	case 'A':
		s.row = clamp(s.row-arg(0, 1), s.rows)
	case 'B', 'e':
		s.row = clamp(s.row+arg(0, 1), s.rows)
	case 'C', 'a':
		s.col = clamp(s.col+arg(0, 1), s.cols)
	case 'D':
		s.col = clamp(s.col-arg(0, 1), s.cols)
	case 'G', '`':
		s.col = clamp(arg(0, 1)-1, s.cols)
	case 'd':
		s.row = clamp(arg(0, 1)-1, s.rows)
	case 'J':
		s.eraseDisplay(arg(0, 0))
	case 'K':
		s.eraseLine(arg(0, 0))
	case 'X':
		s.erase(s.row, s.col, s.row, min(s.col+arg(0, 1), s.cols)-1)
	case 's':
		s.savedRow, s.savedCol = s.row, s.col
	case 'u':
		s.row, s.col = s.savedRow, s.savedCol
	case 'c', 'n':
		s.query(p, final)
	}
}

// query answers what a terminal is asked: the primary device attributes
// (a VT220), the cursor position, a status report, and the kitty keyboard
// flags (none), so that a client waiting for an answer gets one at once.
func (s *screen) query(p string, final byte) {
	switch {
	case final == 'c' && (p == "" || p == "0"):
		s.replies = append(s.replies, "\x1b[?62;22c"...)
	case final == 'n' && p == "6":
		s.replies = append(s.replies, "\x1b["+strconv.Itoa(s.row+1)+";"+strconv.Itoa(s.col+1)+"R"...)
	case final == 'n' && p == "5":
		s.replies = append(s.replies, "\x1b[0n"...)
	case final == 'u' && p == "?":
		s.replies = append(s.replies, "\x1b[?0u"...)
	}
}

func csiNumbers(p string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(p, func(r rune) bool { return r == ';' || r == ':' }) {
		v, _ := strconv.Atoi(f)
		out = append(out, v)
	}
	return out
}

func clamp(v, n int) int { return max(0, min(v, n-1)) }

func (s *screen) eraseDisplay(mode int) {
	switch mode {
	case 0:
		s.eraseLine(0)
		if s.row+1 < s.rows {
			s.erase(s.row+1, 0, s.rows-1, s.cols-1)
		}
	case 1:
		if s.row > 0 {
			s.erase(0, 0, s.row-1, s.cols-1)
		}
		s.eraseLine(1)
	default:
		s.erase(0, 0, s.rows-1, s.cols-1)
	}
}

func (s *screen) eraseLine(mode int) {
	switch mode {
	case 0:
		s.erase(s.row, s.col, s.row, s.cols-1)
	case 1:
		s.erase(s.row, 0, s.row, min(s.col, s.cols-1))
	default:
		s.erase(s.row, 0, s.row, s.cols-1)
	}
}

// erase blanks the cells from (r0, c0) to (r1, c1), row by row.
func (s *screen) erase(r0, c0, r1, c1 int) {
	if s.cells == nil {
		s.cells = make([][]string, s.rows)
		for r := range s.cells {
			s.cells[r] = make([]string, s.cols)
		}
	}
	for r := r0; r <= r1; r++ {
		from, to := 0, s.cols-1
		if r == r0 {
			from = c0
		}
		if r == r1 {
			to = c1
		}
		for c := from; c <= to; c++ {
			s.cells[r][c] = " "
		}
	}
}

// print puts one character at the cursor. A zero-width one joins the
// cell before it; a wide one takes two cells.
func (s *screen) print(ch string) {
	w := uniseg.StringWidth(ch)
	if w == 0 {
		if s.col > 0 {
			s.cells[s.row][s.col-1] += ch
		}
		return
	}
	if s.col+w > s.cols {
		s.col = 0
		s.row = min(s.row+1, s.rows-1)
	}
	s.cells[s.row][s.col] = ch
	for i := 1; i < w; i++ {
		s.cells[s.row][s.col+i] = ""
	}
	s.col = min(s.col+w, s.cols)
}

// text is the grid as lines of text, wide characters once each.
func (s *screen) text() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, s.rows)
	for r, row := range s.cells {
		out[r] = strings.TrimRight(strings.Join(row, ""), " ")
	}
	return out
}
