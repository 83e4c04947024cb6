package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// checksums maps a release file's name to its SHA-256 in hex.
type checksums map[string]string

func (c checksums) add(name string, data []byte) {
	sum := sha256.Sum256(data)
	c[name] = hex.EncodeToString(sum[:])
}

// String is the file sha256sum writes and `sha256sum -c` reads: "HASH  NAME"
// lines sorted by name.
func (c checksums) String() string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(c)) {
		fmt.Fprintf(&b, "%s  %s\n", c[name], name)
	}
	return b.String()
}

// sumLine is one line of a checksums file: 64 lowercase hex digits, two
// spaces and a plain file name.
var sumLine = regexp.MustCompile(`^([0-9a-f]{64})  ([A-Za-z0-9._-]+)$`)

// parseChecksums reads what String writes, and nothing looser: the plugin
// build script reads the same file with awk and must find one exact line.
func parseChecksums(text string) (checksums, error) {
	c := checksums{}
	if !strings.HasSuffix(text, "\n") {
		return nil, fmt.Errorf("no newline at the end")
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		m := sumLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("line %d %q: want 64 lowercase hex digits, two spaces and a file name", i+1, line)
		}
		if _, dup := c[m[2]]; dup {
			return nil, fmt.Errorf("line %d: %s is listed twice", i+1, m[2])
		}
		c[m[2]] = m[1]
	}
	if c.String() != text {
		return nil, fmt.Errorf("lines are not sorted by file name")
	}
	return c, nil
}

// diff names every file whose checksum differs between c (built) and
// want (committed), or that only one of them lists; "" when they agree.
func (c checksums) diff(want checksums) string {
	var out []string
	all := maps.Clone(c)
	maps.Copy(all, want)
	for _, name := range slices.Sorted(maps.Keys(all)) {
		got, ok1 := c[name]
		committed, ok2 := want[name]
		switch {
		case !ok1:
			out = append(out, name+": listed but not built")
		case !ok2:
			out = append(out, name+": built but not listed")
		case got != committed:
			out = append(out, fmt.Sprintf("%s: built %.12s…, listed %.12s…", name, got, committed))
		}
	}
	return strings.Join(out, "; ")
}
