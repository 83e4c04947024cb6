package herdrsim

import (
	"slices"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// pane.move as herdr 0.8.2 plays it (handle_pane_move in
// src/app/api/panes.rs@v0.8.2): a pane keeps its terminal, label, process
// and tokens wherever it goes, and its id within its workspace; moved to
// another workspace it gets that workspace's next pane number, a new id.
// Checked on a real 0.8.2: w1:p2 moved to a new tab of w2 became w2:p2
// with the same terminal_id and label, and its tab.closed came only when
// the move emptied its tab.

type (
	paneMoveDestination struct {
		Type        string  `json:"type"`
		TabID       string  `json:"tab_id"`
		WorkspaceID *string `json:"workspace_id"`
		Label       *string `json:"label"`
	}
	paneMoveResult struct {
		Type   string         `json:"type"`
		Result paneMoveReport `json:"move_result"`
	}
	paneMoveReport struct {
		Changed             bool           `json:"changed"`
		PreviousPaneID      string         `json:"previous_pane_id"`
		PreviousWorkspaceID string         `json:"previous_workspace_id"`
		PreviousTabID       string         `json:"previous_tab_id"`
		Pane                paneWire       `json:"pane"`
		TargetLayout        layoutSnapshot `json:"target_layout"`
		FocusedPaneID       string         `json:"focused_pane_id"`
		CreatedTab          *herdr.Tab     `json:"created_tab,omitempty"`
		ClosedTabID         *string        `json:"closed_tab_id,omitempty"`
	}
)

// paneMove answers pane.move to a tab ("tab") or to a new tab of a
// workspace ("new_tab", the pane's own by default).
func (s *Server) paneMove(pr *params) (any, error) {
	var dst paneMoveDestination
	if !pr.object("destination", &dst) && pr.err == nil {
		pr.fail("missing field `destination`")
	}
	pr.boolean("focus")
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	var to *tab
	switch dst.Type {
	case "tab":
		if to = s.sess.findTab(dst.TabID); to == nil {
			return nil, errf("tab_not_found", "tab %s not found", dst.TabID)
		}
	case "new_tab":
		ws := p.tab.ws
		if dst.WorkspaceID != nil {
			if ws = s.sess.findWorkspace(*dst.WorkspaceID); ws == nil {
				return nil, errf("workspace_not_found", "workspace %s not found", *dst.WorkspaceID)
			}
		}
		to = &tab{ws: ws, custom: dst.Label}
	default:
		return nil, errf("invalid_request", "pane.move to %q is not played by herdrsim", dst.Type)
	}
	return paneMoveResult{Type: "pane_move", Result: s.movePane(p, to)}, nil
}

// movePane moves p into tab to, making to when it is new (no id yet),
// and emits what herdr does; s.mu held.
func (s *Server) movePane(p *pane, to *tab) paneMoveReport {
	from := p.tab
	rep := paneMoveReport{Changed: true, PreviousPaneID: p.id, PreviousWorkspaceID: from.ws.id, PreviousTabID: from.id}
	created := to.id == ""
	if created {
		to.ws.nextTab++
		to.num, to.id = to.ws.nextTab, to.ws.id+":t"+herdr.EncodeNumber(to.ws.nextTab)
		to.ws.tabs = append(to.ws.tabs, to)
	}
	i := slices.Index(from.panes, p)
	from.panes = slices.Delete(from.panes, i, i+1)
	if from.focus == p {
		from.focus = neighbour(from.panes, max(i-1, 0))
	}
	if to.ws != from.ws {
		to.ws.nextPane++
		p.num = to.ws.nextPane
		p.id = to.ws.id + ":p" + herdr.EncodeNumber(p.num)
	}
	p.tab = to
	to.panes = append(to.panes, p)
	if to.focus == nil {
		to.focus = p
	}
	wsGone := len(from.panes) == 0 && s.dropTab(from)
	if len(from.panes) == 0 {
		rep.ClosedTabID = &from.id
	}
	rep.Pane, rep.TargetLayout, rep.FocusedPaneID = s.paneWire(p), s.sess.layout(to), to.focus.id
	if created {
		info := s.sess.tabInfo(to)
		rep.CreatedTab = &info
	}
	ev := map[string]any{"previous_pane_id": rep.PreviousPaneID, "previous_workspace_id": rep.PreviousWorkspaceID,
		"previous_tab_id": rep.PreviousTabID, "pane": rep.Pane}
	s.emit("pane_moved", ev)
	if rep.CreatedTab != nil {
		s.emit("tab_created", map[string]any{"tab": *rep.CreatedTab})
	}
	if rep.ClosedTabID != nil {
		s.emit("tab_closed", map[string]any{"tab_id": from.id, "workspace_id": from.ws.id})
	}
	if wsGone {
		s.emit("workspace_closed", map[string]any{"workspace_id": from.ws.id})
	}
	s.emit("layout_updated", map[string]any{"layout": rep.TargetLayout})
	s.syncFocus()
	return rep
}

// MovePane moves a pane to a new tab of workspace wsID, as a person's
// pane.move does, and returns the pane's id there (a new one in another
// workspace).
func (s *Server) MovePane(paneID, wsID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.lookPane("MovePane", paneID)
	ws := s.sess.findWorkspace(wsID)
	if p == nil || ws == nil {
		s.misuse("MovePane(%q, %q): no such pane or workspace", paneID, wsID)
		return ""
	}
	return s.movePane(p, &tab{ws: ws}).Pane.ID
}
