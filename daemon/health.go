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
// (rundir.Health): only its log would say so otherwise. It records while
// Run runs (start to stop), and is written when a trouble starts or ends,
// from whichever goroutine found out; outside Run (Once, Explain) it
// records nothing.
type health struct {
	socket string
	log    *slog.Logger
	now    func() time.Time

	mu       sync.Mutex
	on       bool
	troubles map[string]rundir.Trouble
}

func newHealth(socket string, log *slog.Logger, now func() time.Time) *health {
	return &health{socket: socket, log: log, now: now}
}

// start starts the running daemon's record: no trouble yet, which also
// replaces a record an earlier daemon left. The function it returns
// stops it.
func (h *health) start() (stop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on, h.troubles = true, map[string]rundir.Trouble{}
	h.write()
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.on = false
	}
}

// trouble notes that the daemon could not do what, for err, or that it
// did again (err nil).
func (h *health) trouble(what string, err error) {
	if err != nil {
		h.fail(what, err)
	} else {
		h.ok(what)
	}
}

// fail notes that the daemon could not do what, for err; an ongoing
// trouble keeps its start and takes the new error.
func (h *health) fail(what string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return
	}
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
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ongoing := h.troubles[what]; !h.on || !ongoing {
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

// trouble notes that the daemon could not do what, for err, or that it
// did again (err nil).
func (d *Daemon) trouble(what string, err error) { d.health.trouble(what, err) }

// saved notes whether the memory could be saved.
func (h *health) saved(err error) { h.trouble(rundir.TroubleState, err) }

// sessionWatch notes whether agents' session files can be watched.
func (h *health) sessionWatch(err error) { h.trouble(rundir.TroubleSessionWatch, err) }

// renamed notes whether herdr took a rename of ours: a refusal (not a
// tab, workspace or pane that went away) is a trouble status shows.
func (h *health) renamed(err error) {
	if err == nil || !herdr.IsServerGone(err) && !errors.Is(err, herdr.ErrNotFound) {
		h.trouble(rundir.TroubleRename, err)
	}
}

// RecordReload logs a refused reload and keeps the outcome of every
// reload (SIGHUP) of the daemon serving socket where status reads it
// (rundir.Reload): a refused one is otherwise only in the log, while the
// daemon runs on with its old configuration.
func RecordReload(log *slog.Logger, socket string, err error) {
	r := rundir.Reload{PID: os.Getpid(), At: time.Now()}
	if err != nil {
		r.Error = err.Error()
		// trace: the stable field tools and tests key on, as the
		// daemon's traced lines carry.
		log.Error("reload failed; keeping the old configuration", "trace", "reload_failed", "err", err)
	}
	if werr := rundir.WriteReload(socket, r); werr != nil {
		log.Warn("could not record the reload's outcome for status", "err", werr)
	}
}
