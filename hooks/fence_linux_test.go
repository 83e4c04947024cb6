//go:build linux

package hooks

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// hookProcs lists, as "pid exe", the live processes of session sid, other
// than its leader, that may still send a nudge: our binary (the nudge
// itself) and the shells that fork to start one (a zsh or bash subshell
// before its exec, fish's `sh -c`). A forked child is in its parent's
// session from the first instant, and the hooks never call setsid, so once
// the prompt that ran a hook is on the screen every nudge that hook started
// is either listed here or has exited, its datagram already queued.
// Anything else in the session (a user's `sleep 30 &`, fish's python
// completion generator) cannot nudge and is not waited for; zombies have
// exited.
func hookProcs(sid int, exes map[string]bool) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return []string{fmt.Sprintf("read /proc: %v", err)}
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == sid {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		// pid (comm) state ppid pgrp session ...; comm may hold spaces
		// and parentheses, so fields are counted after the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" || f[3] != strconv.Itoa(sid) {
			continue
		}
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err != nil || !exes[exe] {
			continue
		}
		out = append(out, fmt.Sprintf("%d %s", pid, exe))
	}
	return out
}
