package procinfo

import (
	"slices"
	"strconv"
)

// FromFront names the program in front of a local shell from one look at
// its terminal (ReadFront, or a watch's), with the rules Program names
// herdr's answer by: launchers and interpreters looked through, ssh
// destinations, shells, rewrites and aliases. It reads nothing more: a
// wrapper's program is the newest child the look found.
func (r *Resolver) FromFront(f Front) Program {
	p := Program{PGID: f.PGID}
	switch {
	case f.PGID == 0:
		p.Why = "no foreground process group"
		return p
	case f.PGID == f.ShellPID && r.paneShell(f.Leader.Argv, f.ShellComm, func() string { return f.EnvShell }):
		return shellInFront(p, f.ShellPID)
	case f.Leader.PID == 0:
		p.PID = f.PGID
		p.Why = "the leader of group " + strconv.Itoa(f.PGID) + " has ended"
		return p
	case f.Forked():
		// No program yet, whatever the shell's name: a shell the list
		// does not name would name the tab after itself until the exec.
		p.PID = f.Leader.PID
		p.Why = "the shell's fork (pid " + strconv.Itoa(f.Leader.PID) + "), before it execs the program"
		return p
	}
	p.PID = f.Leader.PID
	pid := strconv.Itoa(f.Leader.PID)
	argv, why, fromComm := f.Leader.Argv, []string{"argv of pid " + pid + " read locally"}, false
	if len(argv) == 0 {
		if f.Leader.Comm == "" {
			p.Why = "no argv and no command name for pid " + pid
			return p
		}
		argv, why, fromComm = []string{f.Leader.Comm}, []string{"no argv for pid " + pid, "comm " + strconv.Quote(f.Leader.Comm)}, true
	}
	res := r.resolveArgv(argv, why)
	res.pid = f.Leader.PID
	if res.wrapper {
		if f.Child.PID > 0 && len(f.Child.Argv) > 0 {
			step := append(slices.Clip(res.why), "newest child pid "+strconv.Itoa(f.Child.PID)+" of a wrapper, read locally")
			child := r.resolveArgv(f.Child.Argv, step)
			child.pid = f.Child.PID
			res = child
		} else {
			res.why = append(res.why, "named from its command line")
		}
	}
	return r.finish(p, res, fromComm)
}
