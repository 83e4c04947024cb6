package herdrsim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Real mode reads /proc the way herdr's src/platform/linux.rs does, so a
// pane can be backed by a real shell started by a test.

// procStat holds the /proc/<pid>/stat fields herdr uses.
type procStat struct {
	comm  string
	pgrp  int
	tpgid int
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, fmt.Errorf("read stat of pid %d: %w", pid, err)
	}
	// comm is parenthesised and may itself hold ") ", so split at the last one.
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return procStat{}, fmt.Errorf("parse stat of pid %d: no comm field", pid)
	}
	f := strings.Fields(string(b[closing+1:]))
	// after comm: state(3) ppid(4) pgrp(5) session(6) tty_nr(7) tpgid(8)
	if len(f) < 6 {
		return procStat{}, fmt.Errorf("parse stat of pid %d: %d fields after comm", pid, len(f))
	}
	pgrp, err1 := strconv.Atoi(f[2])
	tpgid, err2 := strconv.Atoi(f[5])
	if err1 != nil || err2 != nil {
		return procStat{}, fmt.Errorf("parse stat of pid %d: bad pgrp %q or tpgid %q", pid, f[2], f[5])
	}
	return procStat{comm: string(b[open+1 : closing]), pgrp: pgrp, tpgid: tpgid}, nil
}

// descendants walks /proc/<pid>/task/<tid>/children from root, root included.
func descendants(root int) []int {
	seen := map[int]bool{root: true}
	out, queue := []int{root}, []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue // the task exited while we looked
			}
			for _, f := range strings.Fields(string(b)) {
				c, err := strconv.Atoi(f)
				if err == nil && !seen[c] {
					seen[c] = true
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

func readlinkCwd(pid int) string {
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		return ""
	}
	return cwd
}

func liveProcess(pid int, st procStat) herdr.Process {
	p := herdr.Process{PID: pid, Name: st.comm, Cwd: readlinkCwd(pid)}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		for _, a := range strings.Split(string(b), "\x00") {
			if a != "" {
				p.Argv = append(p.Argv, a)
			}
		}
		p.Cmdline = strings.Join(p.Argv, " ")
	}
	return p
}

// liveForeground returns the foreground group id and its members (sorted
// by pid) found under shell, or 0 when the shell has no terminal group.
func liveForeground(shell int) (int, []herdr.Process) {
	st, err := readStat(shell)
	if err != nil || st.tpgid <= 0 {
		return 0, nil
	}
	var procs []herdr.Process
	for _, pid := range descendants(shell) {
		pst, err := readStat(pid)
		if err == nil && pst.pgrp == st.tpgid {
			procs = append(procs, liveProcess(pid, pst))
		}
	}
	slices.SortFunc(procs, func(a, b herdr.Process) int { return a.PID - b.PID })
	return st.tpgid, procs
}

func liveProcessInfo(paneID string, shell int) herdr.ProcessInfo {
	info := herdr.ProcessInfo{PaneID: paneID}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", shell)); err != nil {
		return info // shell gone: the top-level fields are unknown
	}
	info.ShellPID = shell
	info.ForegroundPGID, info.ForegroundProcesses = liveForeground(shell)
	return info
}

// usableCwd applies the per-protocol filter on foreground_cwd candidates:
// 17 wants an existing directory, 19+ only an absolute path.
func usableCwd(path string, protocol int) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	if protocol <= 17 {
		fi, err := os.Stat(path)
		return err == nil && fi.IsDir()
	}
	return true
}

// liveCwds is cwds read from /proc; 0.9 (22) follows the group leader only.
func liveCwds(p *pane, protocol int) (cwd, fgCwd string) {
	shellCwd := readlinkCwd(p.realShell)
	cwd = firstNonEmpty(p.osc7, shellCwd, p.launchCwd)
	pgid, procs := liveForeground(p.realShell)
	leaderCwd := ""
	if pgid > 0 {
		leaderCwd = readlinkCwd(pgid)
	}
	if leaderCwd != "" && leaderCwd == shellCwd && protocol < 22 {
		for _, pr := range procs {
			if pr.Cwd != "" && pr.Cwd != shellCwd && usableCwd(pr.Cwd, protocol) {
				return cwd, pr.Cwd
			}
		}
	}
	for _, c := range []string{leaderCwd, shellCwd} {
		if c != "" && usableCwd(c, protocol) {
			return cwd, c
		}
	}
	return cwd, ""
}
