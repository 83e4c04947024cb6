package pass

import (
	"errors"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// Fronts has the last looks a watch made at local shells' terminals
// (procinfo.Front): the daemon's local watch, whose look stands in for a
// read of its own.
type Fronts interface {
	// Front is the last look at shellPID's terminal, pane's shell; false
	// when there is none.
	Front(paneID string, shellPID int) (procinfo.Front, bool)
}

// errNoProber: this machine's processes cannot be looked at here.
var errNoProber = errors.New("no look at this machine's processes here")

// Front is a look at pane's local shell's terminal: a new one when fresh,
// else the watch's last one when there is one (Config.Fronts) not older
// than after. A look of the planner's own (a nudged pass's) can be newer
// than the watch's last: the watch's then shows what went before (the
// shell in front before its program started), and a pass that took it
// would name the tab backwards until the watch looks again.
func (p *Planner) Front(paneID string, shellPID int, fresh bool, after time.Time) (procinfo.Front, error) {
	if p.cfg.Fronts != nil && !fresh {
		if f, ok := p.cfg.Fronts.Front(paneID, shellPID); ok && !f.At.Before(after) {
			return f, nil
		}
	}
	if pr, ok := p.cfg.Inspector.(procinfo.Prober); ok {
		return pr.ReadFront(shellPID)
	}
	return procinfo.Front{}, errNoProber
}

// proof is whether a shell herdr names is proven a process here, and why.
type proof struct {
	local bool
	why   string
}

// SetServer gives the planner the pid of the process serving herdr's
// socket as this machine's kernel names it (procinfo.SocketPeer), 0 when
// it names none. A new one ends every proof made with the old one.
func (p *Planner) SetServer(pid int) {
	if pid != p.server {
		p.server, p.proofs = pid, map[int]proof{}
	}
}

// proveLocal says whether shellPID, a pane's shell as herdr names it, is
// proven to run here (procinfo.ProveLocal), once per shell and server: a
// pid alone proves nothing, as herdr in a container or behind a forwarded
// socket names pids a process here may have too.
func (p *Planner) proveLocal(shellPID int) proof {
	if pr, ok := p.proofs[shellPID]; ok {
		return pr
	}
	pr := proof{why: errNoProber.Error()}
	if prober, ok := p.cfg.Inspector.(procinfo.Prober); ok {
		pr.local, pr.why = prober.ProveLocal(p.server, shellPID)
	}
	if p.proofs == nil {
		p.proofs = map[int]proof{}
	}
	p.proofs[shellPID] = pr
	return pr
}
