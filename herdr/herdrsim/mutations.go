package herdrsim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Internal mutations run with s.mu held and emit exactly the events herdr
// emits for the same change (docs/herdr.md §7), gaps included.

func (s *Server) newPane(t *tab, cwd string) *pane {
	t.ws.nextPane++
	p := &pane{tab: t, num: t.ws.nextPane, launchCwd: cwd, shellCwd: cwd}
	p.id = t.ws.id + ":p" + herdr.EncodeNumber(p.num)
	s.newTerminal(p)
	return p
}

// newTerminal gives p a new terminal with a fresh shell at an idle prompt.
func (s *Server) newTerminal(p *pane) {
	s.sess.nextPID++
	s.sess.nextTerm++
	p.shell = Proc{PID: s.sess.nextPID, Argv: []string{"bash"}, Name: "bash"}
	p.terminalID = fmt.Sprintf("term_%x%x", time.Now().UnixMicro(), s.sess.nextTerm)
}

// freshTerminals is what a herdr server started again does to the panes
// it restores: each keeps its id, label and cwd, and gets a new terminal
// (new terminal_id, revision 0) with a new shell, so the terminal title,
// the foreground program, hook-reported agents, metadata and tokens of
// the old one are gone, and the session's agent state change count starts
// over; s.mu held.
func (s *Server) freshTerminals() {
	s.sess.stateSeq = 0
	for _, ws := range s.sess.workspaces {
		for _, t := range ws.tabs {
			for _, p := range t.panes {
				cwd, _ := p.cwds(s.rel.plays)
				fresh := &pane{tab: p.tab, num: p.num, id: p.id, label: p.label,
					launchCwd: cwd, shellCwd: cwd, realShell: p.realShell}
				s.newTerminal(fresh)
				*p = *fresh
			}
		}
	}
}

func (s *Server) addTab(ws *workspace, cwd string, custom *string) (*tab, *pane) {
	ws.nextTab++
	t := &tab{ws: ws, num: ws.nextTab, id: ws.id + ":t" + herdr.EncodeNumber(ws.nextTab), custom: custom}
	p := s.newPane(t, cwd)
	t.panes, t.focus = []*pane{p}, p
	ws.tabs = append(ws.tabs, t)
	if ws.active == nil {
		ws.active = t
	}
	return t, p
}

func (s *Server) newWorkspace(label, cwd string) (*workspace, *tab, *pane) {
	s.sess.nextWS++
	ws := &workspace{num: s.sess.nextWS, id: "w" + herdr.EncodeNumber(s.sess.nextWS)}
	if label != "" {
		ws.custom = &label // workspace.create's label is a custom name
	}
	s.sess.workspaces = append(s.sess.workspaces, ws)
	t, p := s.addTab(ws, cwd, nil)
	if s.sess.focusedWS == nil {
		s.sess.focusedWS = ws
	}
	s.emit("workspace_created", map[string]any{"workspace": s.sess.wsInfo(ws)})
	s.emitTabCreated(t, p)
	return ws, t, p
}

// emitTabCreated announces a new tab as herdr's emit_tab_created_events
// does: the tab, its root pane, the tab's layout; then the focus trio if
// the focus moved to it.
func (s *Server) emitTabCreated(t *tab, p *pane) {
	s.emit("tab_created", map[string]any{"tab": s.sess.tabInfo(t)})
	s.emit("pane_created", map[string]any{"pane": s.paneWire(p)})
	s.emit("layout_updated", map[string]any{"layout": s.sess.layout(t)})
	s.syncFocus()
}

func (s *Server) newTab(ws *workspace, cwd string, custom *string, focus bool) (*tab, *pane) {
	t, p := s.addTab(ws, cwd, custom)
	if focus {
		ws.active, s.sess.focusedWS = t, ws
		markSeen(t)
	}
	s.emitTabCreated(t, p)
	return t, p
}

// syncFocus emits the workspace/tab/pane focused trio when the focused
// pane changed, like herdr's sync_focus_events.
func (s *Server) syncFocus() {
	fp := s.sess.focusedPane()
	id := ""
	if fp != nil {
		id = fp.id
	}
	if id == s.sess.lastFocus {
		return
	}
	s.sess.lastFocus = id
	if fp == nil {
		return
	}
	s.emit("workspace_focused", map[string]any{"workspace_id": fp.tab.ws.id})
	s.emit("tab_focused", map[string]any{"tab_id": fp.tab.id, "workspace_id": fp.tab.ws.id})
	s.emit("pane_focused", map[string]any{"pane_id": fp.id, "workspace_id": fp.tab.ws.id})
}

func (s *Server) renameTab(t *tab, label string) {
	t.custom = &label
	s.emit("tab_renamed", map[string]any{"tab_id": t.id, "workspace_id": t.ws.id, "label": label})
}

// moveTab moves t to the place insert (0..len) between the tabs as they
// are before the move, like herdr's Workspace::move_tab: a tab moved to the
// right lands one before insert, since it no longer counts itself.
func (s *Server) moveTab(t *tab, insert int) {
	ws := t.ws
	from := ws.tabPosition(t)
	to := insert
	if from < insert {
		to = insert - 1
	}
	to = min(to, len(ws.tabs)-1)
	if from == to {
		return // herdr answers tab.move but emits nothing when nothing moved
	}
	ws.tabs = slices.Insert(slices.Delete(ws.tabs, from, from+1), to, t)
	tabs := []herdr.Tab{}
	for _, x := range ws.tabs {
		tabs = append(tabs, s.sess.tabInfo(x))
	}
	s.emit("tab_moved", map[string]any{"tab_id": t.id, "workspace_id": ws.id, "insert_index": insert, "tabs": tabs})
}

func neighbour[T comparable](list []T, i int) T {
	var zero T
	switch {
	case len(list) == 0:
		return zero
	case i < len(list):
		return list[i]
	}
	return list[len(list)-1]
}

// dropTab removes t from its workspace and the workspace when empty;
// it reports whether the workspace vanished too.
func (s *Server) dropTab(t *tab) bool {
	ws := t.ws
	i := ws.tabPosition(t)
	ws.tabs = slices.Delete(ws.tabs, i, i+1)
	for _, p := range t.panes {
		p.gone = true
	}
	if ws.active == t {
		ws.active = neighbour(ws.tabs, max(i-1, 0))
	}
	if len(ws.tabs) > 0 {
		return false
	}
	j := s.sess.wsIndex(ws)
	s.sess.workspaces = slices.Delete(s.sess.workspaces, j, j+1)
	if s.sess.focusedWS == ws {
		s.sess.focusedWS = neighbour(s.sess.workspaces, max(j-1, 0))
	}
	return true
}

// closeTab is tab.close. Closing a workspace's last tab closes the
// workspace too, and its workspace_closed carries the workspace as it was
// just before (src/app/api/tabs.rs@v0.8.2 handle_tab_close).
func (s *Server) closeTab(t *tab) {
	before := s.sess.wsInfo(t.ws)
	wsGone := s.dropTab(t)
	s.emit("tab_closed", map[string]any{"tab_id": t.id, "workspace_id": t.ws.id})
	if wsGone {
		s.emit("workspace_closed", map[string]any{"workspace_id": t.ws.id, "workspace": before})
	}
	s.syncFocus()
}

// removePane takes p out of its tab. exited: the process died (only
// pane_exited); otherwise pane.close (only pane_closed). Up to 20 an
// emptied tab vanishes without tab_closed, and a workspace emptied by an
// exit without workspace_closed; 0.9 (22) announces both after pane_exited
// (docs/herdr.md §7).
func (s *Server) removePane(p *pane, exited bool) {
	t := p.tab
	before := s.sess.wsInfo(t.ws)
	i := slices.Index(t.panes, p)
	t.panes = slices.Delete(t.panes, i, i+1)
	p.gone = true
	if t.focus == p {
		t.focus = neighbour(t.panes, max(i-1, 0))
	}
	tabGone := len(t.panes) == 0
	wsGone := tabGone && s.dropTab(t)
	if exited {
		s.emit("pane_exited", map[string]any{"pane_id": p.id, "workspace_id": t.ws.id})
		if tabGone && s.rel.live() {
			s.emit("tab_closed", map[string]any{"tab_id": t.id, "workspace_id": t.ws.id})
		}
		if wsGone && s.rel.live() {
			s.emit("workspace_closed", map[string]any{"workspace_id": t.ws.id})
		}
	} else {
		s.emit("pane_closed", map[string]any{"pane_id": p.id, "workspace_id": t.ws.id})
		if wsGone {
			// pane.close of a workspace's last pane closes the workspace,
			// announced with the workspace as it was just before
			// (src/app/api/panes.rs@v0.8.2 close_pane); exit emits nothing.
			s.emit("workspace_closed", map[string]any{"workspace_id": t.ws.id, "workspace": before})
		}
	}
	if !tabGone {
		s.emit("layout_updated", map[string]any{"layout": s.sess.layout(t)})
	}
	s.syncFocus()
}

func (s *Server) setTokens(p *pane, next map[string]string) {
	if maps.Equal(next, p.tokens) || (len(next) == 0 && len(p.tokens) == 0) {
		return
	}
	p.tokens = next
	p.revision++
	s.emit("pane_updated", map[string]any{"pane": s.paneWire(p)})
}

func (s *Server) setAgent(p *pane, agent string, status herdr.AgentStatus) {
	before := p.presentation()
	oldAgent := p.agent
	oldStatus := p.agentStatus()
	p.dropSessionOf(oldAgent, agent)
	p.agent, p.status = agent, status
	switch {
	case agent == "":
		p.status, p.stateSeq = "", 0
	case p.agentStatus() != oldStatus:
		s.sess.stateSeq++
		p.stateSeq = s.sess.stateSeq
	}
	if agent != oldAgent {
		d := map[string]any{"pane_id": p.id, "workspace_id": p.tab.ws.id}
		switch {
		case agent != "":
			d["agent"] = agent
		default:
			// An agent leaving is a release: herdr names the agent that
			// left and says released (emit_pane_state_update in
			// src/app/api.rs@v0.8.2).
			d["agent"], d["released"] = oldAgent, true
		}
		s.emit("pane_agent_detected", d)
	}
	if p.presentation() != before {
		s.emit("pane_agent_status_changed", p.statusData())
	}
}

// unseenCompletion reports whether a hook's report of idle leaves p
// "done" (idle, not yet seen): herdr marks a pane unseen when its agent
// finishes (working or blocked to idle, or unknown to idle under the same
// agent) outside the focused tab, or in it while the person's terminal is
// away, and an unseen pane stays unseen until its tab is focused or the
// person comes back to it (src/app/actions.rs@v0.8.2
// apply_pane_state_change, active_tab_suppresses_notifications).
func (s *Server) unseenCompletion(p *pane, agent string) bool {
	switch prev := p.agentStatus(); {
	case prev == herdr.StatusDone:
		return true
	case prev == herdr.StatusWorking, prev == herdr.StatusBlocked,
		prev == herdr.StatusUnknown && p.agent != "" && p.agent == agent:
		return !s.sess.tabFocused(p.tab) || s.sess.away
	}
	return false
}

// ---- the public mutation API ----

// lookPane finds a pane for a test helper; a bad id is a test bug.
func (s *Server) lookPane(call, id string) *pane {
	p := s.sess.findPane(id)
	if p == nil {
		s.misuse("%s: pane %q not found", call, id)
	}
	return p
}

func (s *Server) lookTab(call, id string) *tab {
	t := s.sess.findTab(id)
	if t == nil {
		s.misuse("%s: tab %q not found", call, id)
	}
	return t
}

// NewWorkspace creates a workspace with one tab and one pane. A label is a
// custom name; "" leaves herdr's automatic label, which follows the first
// tab's root pane cwd (docs/herdr.md §6). The first workspace takes the focus.
func (s *Server) NewWorkspace(label, cwd string) (wsID, tabID, paneID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws, t, p := s.newWorkspace(label, cwd)
	return ws.id, t.id, p.id
}

// NewTab adds a tab with one pane at the end of a workspace, unfocused,
// as tab.create without focus does.
func (s *Server) NewTab(wsID, cwd string) (tabID, paneID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.sess.findWorkspace(wsID)
	if ws == nil {
		s.misuse("NewTab: workspace %q not found", wsID)
		return "", ""
	}
	t, p := s.newTab(ws, cwd, nil, false)
	return t.id, p.id
}

// Split adds a pane after paneID in its tab (pane_created, layout_updated).
func (s *Server) Split(paneID, cwd string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookPane("Split", paneID)
	if p == nil {
		return ""
	}
	t := p.tab
	np := s.newPane(t, cwd)
	t.panes = slices.Insert(t.panes, slices.Index(t.panes, p)+1, np)
	s.emit("pane_created", map[string]any{"pane": s.paneWire(np)})
	s.emit("layout_updated", map[string]any{"layout": s.sess.layout(t)})
	return np.id
}

// Focus focuses a pane, its tab and its workspace.
func (s *Server) Focus(paneID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("Focus", paneID); p != nil {
		p.tab.focus, p.tab.ws.active, s.sess.focusedWS = p, p.tab, p.tab.ws
		markSeen(p.tab)
		s.syncFocus()
	}
}

// SetForeground sets a pane's simulated foreground job; procs[0] leads the
// group. No procs means an idle prompt (the shell is the foreground). A
// Proc with PID 0 gets a fresh pid, one with no Cwd the shell's. Silent.
func (s *Server) SetForeground(paneID string, procs ...Proc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("SetForeground", paneID); p != nil {
		p.fg = slices.Clone(procs)
		// A program started from the shell gets a fresh pid and starts
		// where the shell is, unless the test says otherwise.
		for i := range p.fg {
			if p.fg[i].PID == 0 {
				s.sess.nextPID++
				p.fg[i].PID = s.sess.nextPID
			}
			if p.fg[i].Cwd == "" {
				p.fg[i].Cwd = p.shellCwd
			}
		}
	}
}

// SetShellPID sets the simulated shell's pid. Silent.
func (s *Server) SetShellPID(paneID string, pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("SetShellPID", paneID); p != nil {
		p.shell.PID = pid
	}
}

// AttachProcess backs a pane by a real shell: process_info, cwd and
// foreground_cwd are then read live from /proc like herdr does on Linux.
func (s *Server) AttachProcess(paneID string, shellPID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("AttachProcess", paneID); p != nil {
		p.realShell = shellPID
	}
}

// SetCwd changes the shell's cwd. Silent, like herdr.
func (s *Server) SetCwd(paneID, cwd string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("SetCwd", paneID); p != nil {
		p.shellCwd = cwd
	}
}

// ReportOSC7 records an OSC 7 cwd report; it wins over the shell's cwd from
// then on (sticky). Silent.
func (s *Server) ReportOSC7(paneID, cwd string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("ReportOSC7", paneID); p != nil {
		p.osc7 = cwd
	}
}

// SetTitle sets the terminal title. Only a change of the stripped title
// (herdr's rule for the played release) bumps revision and emits
// pane_updated (docs/herdr.md §8).
func (s *Server) SetTitle(paneID, title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookPane("SetTitle", paneID)
	if p == nil {
		return
	}
	p.title = title
	if st := stripTitle(title, s.rel.titleGlyphs()); st != p.stripped {
		p.stripped = st
		p.revision++
		s.emit("pane_updated", map[string]any{"pane": s.paneWire(p)})
	}
}

// SetAgent sets the detected agent and status ("" agent clears both),
// emitting pane_agent_detected and pane_agent_status_changed as herdr does.
// The status is the one herdr is to report, "done" included; a hook's
// pane.report_agent instead goes through herdr's rule for when a finished
// agent is "done" (unseenCompletion).
func (s *Server) SetAgent(paneID, agent string, status herdr.AgentStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("SetAgent", paneID); p != nil {
		s.setAgent(p, agent, status)
	}
}

// SetTokens patches metadata tokens ("" value deletes a key); a real
// change bumps revision and emits pane_updated.
func (s *Server) SetTokens(paneID string, tokens map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookPane("SetTokens", paneID)
	if p == nil {
		return
	}
	next := maps.Clone(p.tokens)
	if next == nil {
		next = map[string]string{}
	}
	for k, v := range tokens {
		if v == "" {
			delete(next, k)
		} else {
			next[k] = v
		}
	}
	s.setTokens(p, next)
}

// HumanRename is a person's rename of a tab in herdr's TUI: typed into the
// rename modal and saved with Enter (docs/herdr.md §6). herdr saves it
// through tab.rename's own handler, so tab_renamed follows as for the API,
// even for an unchanged custom name; the name is trimmed, except that
// blanks alone are kept as typed. An empty input does nothing, and so does
// a tab's own number typed into a tab that has no custom name. herdr
// renames the active tab; this renames tabID wherever it is, so a twin of
// a TUI rename focuses the tab first, as a person does. It is not counted
// in Renames, which are the API's.
func (s *Server) HumanRename(tabID, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.lookTab("HumanRename", tabID)
	label = modalName(label)
	if t == nil || label == "" || (t.custom == nil && label == t.label()) {
		return
	}
	s.renameTab(t, label)
}

// HumanNewTab is a tab made from herdr's new-tab prompt (prefix+c, then a
// name and Enter; docs/herdr.md §6): tab.create in the focused workspace,
// focused, in the focused pane's directory, with the typed name (trimmed
// as by HumanRename) as its custom name, or none when the input is empty
// or the number the tab gets anyway. Events as tab.create's with focus.
func (s *Server) HumanNewTab(label string) (tabID, paneID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ws := s.sess.focusedWS
	if ws == nil {
		s.misuse("HumanNewTab: no focused workspace")
		return "", ""
	}
	var custom *string
	if label = modalName(label); label != "" && label != fmt.Sprint(len(ws.tabs)+1) {
		custom = &label
	}
	cwd := ""
	if fp := s.sess.focusedPane(); fp != nil {
		cwd, _ = fp.cwds(s.rel.plays)
	}
	t, p := s.newTab(ws, cwd, custom, true)
	return t.id, p.id
}

// modalName is what herdr's rename modal saves for the text typed into it
// (save_rename_modal_via_api in src/app/input/modal.rs@v0.8.2): trimmed,
// unless nothing would be left, when it stays as typed.
func modalName(typed string) string {
	if t := strings.TrimSpace(typed); t != "" {
		return t
	}
	return typed
}

// CloseTab closes a tab as tab.close does (tab_closed).
func (s *Server) CloseTab(tabID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.lookTab("CloseTab", tabID); t != nil {
		s.closeTab(t)
	}
}

// ClosePane closes a pane as pane.close does (only pane_closed).
func (s *Server) ClosePane(paneID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("ClosePane", paneID); p != nil {
		s.removePane(p, false)
	}
}

// ExitPane makes a pane's process exit (only pane_exited).
func (s *Server) ExitPane(paneID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.lookPane("ExitPane", paneID); p != nil {
		s.removePane(p, true)
	}
}

// MoveTab moves a tab to position index (0-based) within its workspace,
// as the tab.move that puts it there does: tab.move's insert_index counts
// places before the move, so a move to the right is sent as index+1, and
// tab_moved carries that insert_index.
func (s *Server) MoveTab(tabID string, index int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.lookTab("MoveTab", tabID)
	if t == nil {
		return
	}
	if index < 0 || index >= len(t.ws.tabs) {
		s.misuse("MoveTab(%q, %d): index out of bounds (%d tabs)", tabID, index, len(t.ws.tabs))
		return
	}
	insert := index
	if index > t.ws.tabPosition(t) {
		insert = index + 1
	}
	s.moveTab(t, insert)
}

// Snapshot is the current truth, as session.snapshot would answer.
func (s *Server) Snapshot() herdr.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := s.sess.snapshot(s.version, s.cfg.protocol, s.rel.plays)
	panes := make([]herdr.Pane, len(snap.Panes))
	for i, p := range snap.Panes {
		panes[i] = p.Pane
	}
	return herdr.Snapshot{Version: snap.Version, Protocol: snap.Protocol, FocusedWorkspaceID: snap.FocusedWorkspaceID,
		FocusedTabID: snap.FocusedTabID, FocusedPaneID: snap.FocusedPaneID, Workspaces: snap.Workspaces,
		Tabs: snap.Tabs, Panes: panes}
}

// Tab returns a tab's current TabInfo.
func (s *Server) Tab(tabID string) (herdr.Tab, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.sess.findTab(tabID)
	if t == nil {
		return herdr.Tab{}, false
	}
	return s.sess.tabInfo(t), true
}

// Pane returns a pane's current PaneInfo.
func (s *Server) Pane(paneID string) (herdr.Pane, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.sess.findPane(paneID)
	if p == nil {
		return herdr.Pane{}, false
	}
	return s.sess.paneInfo(p, s.rel.plays), true
}

// ForegroundPGID answers what a local look at /proc/<shellPID>/stat would
// for a simulated pane: the foreground process group of its terminal. It
// lets tests give the daemon an Inspector that agrees with this fake, the
// way the real /proc agrees with a real herdr.
func (s *Server) ForegroundPGID(shellPID int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ws := range s.sess.workspaces {
		for _, t := range ws.tabs {
			for _, p := range t.panes {
				if p.realShell == 0 && p.shell.PID == shellPID {
					if len(p.fg) > 0 {
						return p.fg[0].PID, nil
					}
					return shellPID, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("herdrsim: no simulated shell with pid %d", shellPID)
}

// paneWire is p's PaneInfo for the wire; s.mu held.
func (s *Server) paneWire(p *pane) paneWire { return s.sess.paneWire(p, s.rel.plays) }
