package herdr

import (
	"fmt"
	"strings"
)

// idAlphabet is herdr's bijective base-32 alphabet for public ids
// (docs/herdr.md §5): digit values 1..32, no I L O U, uppercase only.
const idAlphabet = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"

// EncodeNumber renders n (>= 1) the way herdr writes the numeric part of a
// public id: EncodeNumber(1) = "1", 10 = "A", 32 = "0", 33 = "11".
func EncodeNumber(n int) string {
	if n < 1 {
		return ""
	}
	var b []byte
	for n > 0 {
		n-- // bijective: digit values run 1..32
		b = append(b, idAlphabet[n%32])
		n /= 32
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// DecodeNumber is the inverse of EncodeNumber.
func DecodeNumber(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty id number")
	}
	n := 0
	for _, r := range s {
		i := strings.IndexRune(idAlphabet, r)
		if i < 0 {
			return 0, fmt.Errorf("bad character %q in id number %q", r, s)
		}
		if n > (1<<31)/32 {
			return 0, fmt.Errorf("id number %q is too large", s)
		}
		n = n*32 + i + 1
	}
	return n, nil
}

// ParsePaneID checks a canonical pane id ("w1:p3") and returns its
// workspace id and pane number.
func ParsePaneID(id string) (workspace string, number int, err error) {
	return parseChildID(id, 'p', "pane")
}

// ParseTabID checks a canonical tab id ("w1:t2") and returns its workspace
// id and tab number.
func ParseTabID(id string) (workspace string, number int, err error) {
	return parseChildID(id, 't', "tab")
}

// ParseWorkspaceID checks a canonical workspace id ("w1") and returns its
// number.
func ParseWorkspaceID(id string) (int, error) {
	if len(id) < 2 || id[0] != 'w' {
		return 0, fmt.Errorf("invalid workspace id %q: want w<number>, e.g. w1", id)
	}
	n, err := DecodeNumber(id[1:])
	if err != nil {
		return 0, fmt.Errorf("invalid workspace id %q: %w", id, err)
	}
	return n, nil
}

func parseChildID(id string, kind byte, what string) (string, int, error) {
	ws, rest, ok := strings.Cut(id, ":")
	if !ok || len(rest) < 2 || rest[0] != kind {
		return "", 0, fmt.Errorf("invalid %s id %q: want w<number>:%c<number>, e.g. w1:%c3", what, id, kind, kind)
	}
	if _, err := ParseWorkspaceID(ws); err != nil {
		return "", 0, fmt.Errorf("invalid %s id %q: %w", what, id, err)
	}
	n, err := DecodeNumber(rest[1:])
	if err != nil {
		return "", 0, fmt.Errorf("invalid %s id %q: %w", what, id, err)
	}
	return ws, n, nil
}
