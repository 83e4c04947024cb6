package daemon

import (
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// health keeps what the running daemon cannot do where status reads it
// (rundir.Health): only its log would say so otherwise. It is written when
// a trouble starts or ends, from whichever goroutine found out. A nil
// health (Once, Explain) records nothing.
type health struct {
	socket string
	log    *slog.Logger
	now    func() time.Time

	mu       sync.Mutex
	troubles map[string]rundir.Trouble
}

// newHealth starts the daemon's record: no trouble yet, which also
// replaces a record an earlier daemon left.
func newHealth(socket string, log *slog.Logger, now func() time.Time) *health {
	h := &health{socket: socket, log: log, now: now, troubles: map[string]rundir.Trouble{}}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.write()
	return h
}

// fail notes that the daemon could not do what, for err; an ongoing
// trouble keeps its start and takes the new error.
func (h *health) fail(what string, err error) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ongoing := h.troubles[what]
	if !ongoing {
		t = rundir.Trouble{What: what, Since: h.now()}
	}
	if ongoing && t.Error == err.Error() {
		return
	}
	t.Error = err.Error()
	h.troubles[what] = t
	h.write()
}

// ok notes that the daemon did what.
func (h *health) ok(what string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ongoing := h.troubles[what]; !ongoing {
		return
	}
	delete(h.troubles, what)
	h.write()
}

// write saves the record; h.mu held.
func (h *health) write() {
	rec := rundir.Health{PID: os.Getpid(), At: h.now()}
	for _, t := range h.troubles {
		rec.Troubles = append(rec.Troubles, t)
	}
	slices.SortFunc(rec.Troubles, func(a, b rundir.Trouble) int { return strings.Compare(a.What, b.What) })
	if err := rundir.WriteHealth(h.socket, rec); err != nil {
		h.log.Warn("could not record what the daemon cannot do for status", "err", err)
	}
}

// startHealth starts the running daemon's health record, which replaces
// an earlier daemon's; the function it returns ends it.
func (d *Daemon) startHealth() (end func()) {
	d.health = newHealth(d.opt.Socket, d.log, d.clock)
	return func() { d.health = nil }
}

// trouble notes that the daemon could not do what, for err, or that it
// did again (err nil).
func (d *Daemon) trouble(what string, err error) {
	if err != nil {
		d.health.fail(what, err)
	} else {
		d.health.ok(what)
	}
}

// saved notes whether the memory could be saved.
func (d *Daemon) saved(err error) { d.trouble(rundir.TroubleState, err) }

// sessionWatch notes whether agents' session files can be watched.
func (d *Daemon) sessionWatch(err error) { d.trouble(rundir.TroubleSessionWatch, err) }

// renamed notes whether herdr took a rename of ours: a refusal (not a
// tab that went away) is a trouble status shows.
func (d *Daemon) renamed(err error) {
	if err == nil || !herdr.IsServerGone(err) && !errors.Is(err, herdr.ErrTabNotFound) && !errors.Is(err, herdr.ErrWorkspaceNotFound) {
		d.trouble(rundir.TroubleRename, err)
	}
}
