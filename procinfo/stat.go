package procinfo

import (
	"bytes"
	"errors"
	"strconv"
)

// Stat is what is read of a process's stat: a /proc/<pid>/stat line on
// Linux (ParseStat), sysctl's kinfo_proc on macOS.
type Stat struct {
	Comm string // field 2, without its parentheses
	// State is field 3: 'R' running, 'S' sleeping, 'Z' a zombie (ended,
	// its parent has not reaped it yet), ...
	State byte
	PPID  int // field 4, the parent's pid
	// TTY is the controlling terminal's device number (field 7, tty_nr;
	// 0: none).
	TTY int
	// TPGID is the terminal's foreground process group (field 8; -1 or
	// 0: no controlling terminal).
	TPGID int
	// StartTime is when the process started, in clock ticks since boot
	// (field 22; 0 when the line stops before it): with the pid, it tells
	// one process from a later one that reuses its pid.
	StartTime uint64
}

// ReadStat reads pid's stat once: /proc/<pid>/stat on Linux, sysctl's
// kinfo_proc on macOS; elsewhere it fails.
func ReadStat(pid int) (Stat, error) { return readStat(pid) }

// ParseStat reads comm, state, ppid, tty_nr, tpgid and starttime of a
// /proc/<pid>/stat line. comm may hold spaces, parentheses and newlines,
// so the fields are counted after the last ')'.
func ParseStat(stat []byte) (Stat, error) {
	open := bytes.IndexByte(stat, '(')
	end := bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Stat{}, errors.New("no ')' closing the command name")
	}
	// After ')': state ppid pgrp session tty_nr tpgid, then 13 more up to
	// starttime.
	var f [20][]byte
	rest := stat[end+1:]
	n := 0
	for ; n < len(f); n++ {
		rest = bytes.TrimLeft(rest, " \n")
		sp := bytes.IndexAny(rest, " \n")
		if sp < 0 {
			sp = len(rest)
		}
		if sp == 0 {
			break
		}
		f[n], rest = rest[:sp], rest[sp:]
	}
	if n < 6 {
		return Stat{}, errors.New("fewer than 8 fields")
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return Stat{}, errors.New("ppid (field 4) is not a number")
	}
	tty, err := strconv.Atoi(string(f[4]))
	if err != nil {
		return Stat{}, errors.New("tty_nr (field 7) is not a number")
	}
	tpgid, err := strconv.Atoi(string(f[5]))
	if err != nil {
		return Stat{}, errors.New("tpgid (field 8) is not a number")
	}
	st := Stat{Comm: string(stat[open+1 : end]), State: f[0][0], PPID: ppid, TTY: tty, TPGID: tpgid}
	if n == len(f) {
		if st.StartTime, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
			return Stat{}, errors.New("starttime (field 22) is not a number")
		}
	}
	return st, nil
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
