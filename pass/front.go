package pass

import (
	"errors"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// Local is this machine's word on panes' shells (*localwatch.Shells):
// whether a shell herdr names runs here, and the local watch's last look
// at one's terminal, which stands in for a read of the pass's own.
type Local interface {
	// Prove says whether herdr's shellPID is proven a process here.
	Prove(shellPID int) bool
	// Front is the last look at shellPID's terminal, pane's shell; false
	// when there is none.
	Front(paneID string, shellPID int) (procinfo.Front, bool)
}

// errNoProber: this machine's processes cannot be looked at here.
var errNoProber = errors.New("no look at this machine's processes here")

// front is a look at pane's local shell's terminal: a new one when fresh,
// else the watch's last one when there is one (Local.Front) not older
// than after. A look of the planner's own (a nudged pass's) can be newer
// than the watch's last: the watch's then shows what went before (the
// shell in front before its program started), and a pass that took it
// would name the tab backwards until the watch looks again.
func (p *Planner) front(paneID string, shellPID int, fresh bool, after time.Time) (procinfo.Front, error) {
	if p.local != nil && !fresh {
		if f, ok := p.local.Front(paneID, shellPID); ok && !f.At.Before(after) {
			return f, nil
		}
	}
	if pr, ok := p.cfg.Inspector.(procinfo.Prober); ok {
		return pr.ReadFront(shellPID)
	}
	return procinfo.Front{}, errNoProber
}
