package pass

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

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

// localShells are the panes whose shells are proven to run here, by pane
// id, as the program cache knows them: what the pass hands the local
// watch (Plan.Shells).
func (p *Planner) localShells() map[string]procinfo.Shell {
	out := map[string]procinfo.Shell{}
	for id, c := range p.progs.all() {
		if c.localOK && c.shellPID > 0 {
			out[id] = procinfo.Shell{PID: c.shellPID, PGID: c.pgid}
		}
	}
	return out
}
