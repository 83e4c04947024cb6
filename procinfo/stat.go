package procinfo

import (
	"bytes"
	"errors"
	"strconv"
)

// parseTPGID reads tpgid, field 8 of /proc/<pid>/stat. comm (field 2) may
// hold spaces, parentheses and newlines, so the fields are counted after
// the last ')'. A process without a controlling terminal has tpgid -1.
func parseTPGID(stat []byte) (int, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, errors.New("no ')' closing the command name")
	}
	rest := stat[end+1:]
	// After ')': state ppid pgrp session tty_nr tpgid ...
	for field := 0; field < 6; field++ {
		rest = bytes.TrimLeft(rest, " ")
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 {
			sp = len(rest)
		}
		if field == 5 {
			v, err := strconv.Atoi(string(rest[:sp]))
			if err != nil {
				return 0, errors.New("tpgid (field 8) is not a number")
			}
			if v <= 0 {
				return 0, errors.New("no controlling terminal")
			}
			return v, nil
		}
		if sp == len(rest) {
			break
		}
		rest = rest[sp:]
	}
	return 0, errors.New("fewer than 8 fields")
}
