package procinfo

import (
	"bytes"
	"errors"
	"strconv"
)

// Stat is what the daemon reads of a /proc/<pid>/stat line (Linux).
type Stat struct {
	Comm string // field 2, without its parentheses
	// TTY is the controlling terminal's device number (field 7, tty_nr;
	// 0: none).
	TTY int
	// TPGID is the terminal's foreground process group (field 8; -1 or
	// 0: no controlling terminal).
	TPGID int
}

// ParseStat reads comm, tty_nr and tpgid of a /proc/<pid>/stat line. comm
// may hold spaces, parentheses and newlines, so the fields are counted
// after the last ')'.
func ParseStat(stat []byte) (Stat, error) {
	open := bytes.IndexByte(stat, '(')
	end := bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Stat{}, errors.New("no ')' closing the command name")
	}
	// After ')': state ppid pgrp session tty_nr tpgid ...
	var f [6][]byte
	rest := stat[end+1:]
	for i := range f {
		rest = bytes.TrimLeft(rest, " ")
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 {
			sp = len(rest)
		}
		if sp == 0 {
			return Stat{}, errors.New("fewer than 8 fields")
		}
		f[i], rest = rest[:sp], rest[sp:]
	}
	tty, err := strconv.Atoi(string(f[4]))
	if err != nil {
		return Stat{}, errors.New("tty_nr (field 7) is not a number")
	}
	tpgid, err := strconv.Atoi(string(f[5]))
	if err != nil {
		return Stat{}, errors.New("tpgid (field 8) is not a number")
	}
	return Stat{Comm: string(stat[open+1 : end]), TTY: tty, TPGID: tpgid}, nil
}

// parseTPGID reads tpgid, field 8 of /proc/<pid>/stat. A process without a
// controlling terminal has tpgid -1.
func parseTPGID(stat []byte) (int, error) {
	st, err := ParseStat(stat)
	if err != nil {
		return 0, err
	}
	if st.TPGID <= 0 {
		return 0, errors.New("no controlling terminal")
	}
	return st.TPGID, nil
}
