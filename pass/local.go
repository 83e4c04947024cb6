package pass

import "time"

// Timings of the program cache.
const (
	// forkExecWindow is how long a group of its own that a shell leads
	// may still be the pane shell's fork before it execs the program
	// typed: well under a millisecond on an idle machine, hundreds on a
	// loaded one. Within it the group is looked at again, as no program
	// yet.
	forkExecWindow = time.Second
	// defaultGatherBudget bounds the time a pass spends asking for
	// programs; what is left is asked by the next passes, the most
	// needed first.
	defaultGatherBudget = 2 * time.Second
)

// LocalShell is a pane's shell as the program cache knows it, when its
// processes are this machine's to look at (our look at the shell's
// terminal agreed with herdr's answer).
type LocalShell struct {
	PID  int // the pane's shell
	PGID int // the foreground group last seen in front
}

// Local is the pane's local shell; false when the pane's processes are
// not known to be this machine's.
func (p *Planner) Local(paneID string) (LocalShell, bool) {
	c := p.progs.of(paneID)
	if c == nil || !c.localOK || c.shellPID <= 0 {
		return LocalShell{}, false
	}
	return LocalShell{PID: c.shellPID, PGID: c.pgid}, true
}

// LocalShells are the local shells of every pane, by pane id: those the
// kernel's watch can follow.
func (p *Planner) LocalShells() map[string]LocalShell {
	out := map[string]LocalShell{}
	for id := range p.progs.all() {
		if s, ok := p.Local(id); ok {
			out[id] = s
		}
	}
	return out
}
