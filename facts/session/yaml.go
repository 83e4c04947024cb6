package session

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yamlScalars reads the top-level keys wanted of a small YAML mapping
// whose values are scalars, as Copilot CLI's workspace.yaml is: plain,
// 'single-quoted' or "double-quoted", folded onto indented lines when
// long. Two keys of a flat file do not need a YAML library; a value in
// another form (a block scalar, a flow collection, an alias) is an error,
// never a wrong name.
func yamlScalars(b []byte, wanted ...string) (map[string]string, error) {
	out := map[string]string{}
	for i := 0; i < len(b); {
		line, next := yamlLine(b, i)
		i = next
		key, rest, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(key) == 0 || key[0] == ' ' || key[0] == '#' || key[0] == '-' || !isWanted(key, wanted) {
			continue
		}
		// A long value goes on over the indented lines after it.
		end := i
		for end < len(b) && b[end] == ' ' {
			_, end = yamlLine(b, end)
		}
		v, err := yamlScalar(yamlJoin(rest, b[i:end]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		out[string(key)] = v
		i = end
	}
	return out, nil
}

// yamlLine is the line of b that starts at i, without its line break,
// and where the next one starts.
func yamlLine(b []byte, i int) (line []byte, next int) {
	end := bytes.IndexByte(b[i:], '\n')
	if end < 0 {
		end, next = len(b), len(b)
	} else {
		end, next = i+end, i+end+1
	}
	return bytes.TrimRight(b[i:end], "\r"), next
}

// yamlJoin is a value's first line and its indented continuation lines
// joined by single spaces, trimmed: built once, in one allocation.
func yamlJoin(first, more []byte) string {
	var j strings.Builder
	j.Grow(len(first) + len(more) + 1)
	j.Write(first)
	for i := 0; i < len(more); {
		line, next := yamlLine(more, i)
		j.WriteByte(' ')
		j.Write(bytes.TrimSpace(line))
		i = next
	}
	return strings.TrimSpace(j.String())
}

func isWanted(key []byte, wanted []string) bool {
	for _, w := range wanted {
		if string(key) == w {
			return true
		}
	}
	return false
}

// yamlScalar is the value of one scalar, its continuation lines joined.
func yamlScalar(v string) (string, error) {
	switch {
	case v == "", v == "~", v == "null":
		return "", nil
	case v[0] == '\'':
		end := strings.LastIndexByte(v, '\'')
		if end == 0 {
			return "", errors.New("an unterminated 'quoted' value")
		}
		return strings.ReplaceAll(v[1:end], "''", "'"), nil
	case v[0] == '"':
		return yamlDoubleQuoted(v)
	case strings.ContainsRune("|>[{&*!%@`", rune(v[0])):
		return "", fmt.Errorf("a value of a form not read (%q)", v[:1])
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, nil
}

// yamlDoubleQuoted decodes a "double-quoted" value and its escapes.
func yamlDoubleQuoted(v string) (string, error) {
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			return b.String(), nil
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(v) {
			break
		}
		if s, ok := yamlEscapes[v[i]]; ok {
			b.WriteString(s)
			continue
		}
		n := yamlHexDigits(v[i])
		if n == 0 || i+n >= len(v) {
			return "", fmt.Errorf("an escape not read (\\%c)", v[i])
		}
		r, err := strconv.ParseUint(v[i+1:i+1+n], 16, 32)
		if err != nil || !utf8.ValidRune(rune(r)) {
			return "", fmt.Errorf("a bad escape \\%s", v[i:i+1+n])
		}
		b.WriteRune(rune(r))
		i += n
	}
	return "", errors.New(`an unterminated "quoted" value`)
}

// yamlHexDigits is how many hex digits follow the escape \c: \x, \u or
// \U; 0 for another.
func yamlHexDigits(c byte) int {
	switch c {
	case 'x':
		return 2
	case 'u':
		return 4
	case 'U':
		return 8
	}
	return 0
}

// yamlEscapes are YAML's one-character escapes of a double-quoted value.
var yamlEscapes = map[byte]string{
	'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
	'r': "\r", 'e': "\x1b", ' ': " ", '"': `"`, '/': "/", '\\': `\`, 'N': "\u0085", '_': "\u00a0",
	'L': "\u2028", 'P': "\u2029",
}
