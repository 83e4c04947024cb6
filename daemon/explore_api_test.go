package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// schedAPI is herdr as the interleaving search schedules it: an offline
// herdrsim that every request reaches in process, in the order it is
// made, with the search's say at each rename: what happens inside its
// window (before it applies) and after it applied but before its answer
// (the answer lost with a killed process).
type schedAPI struct {
	x *explorer
	// who is the process making the requests: a daemon's run, or a
	// command's.
	who *proc
}

// errGone is what a killed process's requests meet: herdr's answer never
// reaches it.
var errGone = &herdr.TransportError{Op: "rename", Err: errors.New("the process was killed")}

func (a schedAPI) call(method string, params any, out any) error {
	if a.who.dead {
		return errGone
	}
	raw, err := a.x.srv.Do(method, params)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

func (a schedAPI) Snapshot(context.Context) (*herdr.Snapshot, error) {
	var r struct{ Snapshot *herdr.Snapshot }
	err := a.call("session.snapshot", nil, &r)
	return r.Snapshot, err
}

func (a schedAPI) Tab(_ context.Context, id string) (herdr.Tab, error) {
	var r struct{ Tab herdr.Tab }
	err := a.call("tab.get", map[string]string{"tab_id": id}, &r)
	return r.Tab, err
}

func (a schedAPI) Pane(_ context.Context, id string) (herdr.Pane, error) {
	var r struct{ Pane herdr.Pane }
	err := a.call("pane.get", map[string]string{"pane_id": id}, &r)
	return r.Pane, err
}

func (a schedAPI) Workspaces(context.Context) ([]herdr.Workspace, error) {
	var r struct{ Workspaces []herdr.Workspace }
	err := a.call("workspace.list", nil, &r)
	return r.Workspaces, err
}

func (a schedAPI) ProcessInfo(_ context.Context, id string) (herdr.ProcessInfo, error) {
	var r struct {
		ProcessInfo herdr.ProcessInfo `json:"process_info"`
	}
	err := a.call("pane.process_info", map[string]string{"pane_id": id}, &r)
	return r.ProcessInfo, err
}

func (a schedAPI) Protocol() int { return a.x.proto }

func (a schedAPI) RenameTab(_ context.Context, id, label string) (herdr.Tab, error) {
	var r struct{ Tab herdr.Tab }
	err := a.rename(state.TabTarget(id), "tab.rename", map[string]string{"tab_id": id, "label": label}, &r)
	return r.Tab, err
}

func (a schedAPI) RenameWorkspace(_ context.Context, id, label string) (herdr.Workspace, error) {
	var r struct{ Workspace herdr.Workspace }
	err := a.rename(state.WorkspaceTarget(id), "workspace.rename", map[string]string{"workspace_id": id, "label": label}, &r)
	return r.Workspace, err
}

func (a schedAPI) RenamePane(_ context.Context, id, label string) (herdr.Pane, error) {
	var r struct{ Pane herdr.Pane }
	err := a.rename(state.PaneTarget(id), "pane.rename", map[string]string{"pane_id": id, "label": label}, &r)
	return r.Pane, err
}

// rename is one rename of ours: the search acts inside its window, may
// kill the process with it on its way (it lands later, or never), and
// acts again after it applied.
func (a schedAPI) rename(t state.Target, method string, params map[string]string, out any) error {
	if a.who.dead {
		return errGone
	}
	x := a.x
	x.sent(t, params["label"])
	// Its window is open from the request to its answer.
	x.open(a.who, t, params["label"])
	defer func() { x.windows = x.windows[:len(x.windows)-1] }()
	x.inside(a.who, t)
	if a.who.dead {
		if x.draw("kill: the request lands later") {
			x.late = append(x.late, lateRename{life: x.life, method: method, params: params, t: t, at: x.now})
		}
		return errGone
	}
	if err := a.call(method, params, out); err != nil {
		return err
	}
	x.note("%s's rename of %s to %q applied", a.who.name, t.ID, params["label"])
	a.who.applied = append(a.who.applied, applied{t: t, seq: x.lastSeq()})
	x.applied(a.who, t)
	x.after(a.who, t)
	if a.who.dead {
		return errGone // applied, its answer lost
	}
	return nil
}

// applied is a rename of a process that herdr applied, and its event.
type applied struct {
	t   state.Target
	seq uint64
}

// lastSeq is the newest event's place in herdr's ring.
func (x *explorer) lastSeq() uint64 {
	ring := x.srv.Ring()
	if len(ring) == 0 {
		return 0
	}
	return ring[len(ring)-1].Seq
}

// lateRename is a killed process's rename that herdr applies later.
type lateRename struct {
	life   int
	method string
	params map[string]string
	t      state.Target
	at     time.Time
	// orphan: a person removed the memory that said it was ours; when it
	// lands, nothing can tell it from a person's.
	orphan bool
}

// offlineHerdr starts an offline herdrsim of protocol proto.
func offlineHerdr(proto int) (*herdrsim.Server, error) {
	return herdrsim.New(herdrsim.WithProtocol(proto), herdrsim.Offline(), herdrsim.WithoutSchemas())
}
