package daemon

import (
	"context"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The state file describes one herdr server's life. herdr keeps its ids
// across a restart that restores the session, but one restarted without
// it (a crash inside the 5 s before herdr saves, a deleted session file)
// counts again from 1: the old locks, labels and flights would then apply
// to other tabs. So the file records the server process it describes,
// and a daemon that meets another one keeps only the memory of tabs and
// workspaces that show what it remembers of them, as a restored session
// does.

// checkInstance compares the server serving the socket now with the one
// the state describes, once per connection to it. Without write (explain,
// a planning pass) it only forgets, in memory, what no longer holds.
func (d *Daemon) checkInstance(ctx context.Context, snap *herdr.Snapshot, write bool) {
	gen := d.stream.gen.Load()
	if d.instanceChecked && d.instanceGen == gen {
		return
	}
	inst, err := procinfo.ServerInstance(ctx, d.client.SocketPath())
	if err != nil {
		d.log.Debug("cannot tell herdr's server process apart from an earlier one", "err", err)
		return
	}
	d.instanceChecked, d.instanceGen = true, gen
	if d.state.Instance == inst {
		return
	}
	was := d.state.Instance
	var kept, dropped int
	renew := func(map[string]state.TabMemory) {
		if was != "" {
			kept, dropped = revalidate(d.state, snap)
		}
		d.state.Instance = inst
	}
	if !write {
		renew(d.state.Tabs)
	} else if err := d.update(renew); err != nil {
		d.log.Warn("could not save state; keeping it in memory", "err", err)
	}
	if was != "" {
		d.log.Info("herdr's server restarted: kept the memory of what still shows it, forgot the rest",
			"was", was, "now", inst, "kept", kept, "forgot", dropped)
	}
}

// revalidate keeps the memory of each tab and workspace that the new
// server shows with a label remembered of it, and drops the rest.
func revalidate(st *state.State, snap *herdr.Snapshot) (kept, dropped int) {
	tabs := map[string]string{}
	for _, t := range snap.Tabs {
		tabs[t.ID] = t.Label
	}
	for id, m := range st.Tabs {
		l, ok := tabs[id]
		if ok && l != "" && (l == m.Label || l == m.LockedLabel || l == m.PrefixedAs || l == m.PersonText) {
			kept++
			continue
		}
		delete(st.Tabs, id)
		dropped++
	}
	wss := map[string]string{}
	for _, w := range snap.Workspaces {
		wss[w.ID] = w.Label
	}
	for id, m := range st.Workspaces {
		if l, ok := wss[id]; ok && l != "" && l == m.Label {
			kept++
			continue
		}
		delete(st.Workspaces, id)
		dropped++
	}
	return kept, dropped
}
