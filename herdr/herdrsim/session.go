package herdrsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Proc is one simulated process of a pane's foreground job.
type Proc struct {
	PID  int
	Argv []string
	Name string // comm; default: basename of Argv[0]; cut to 15 bytes like the kernel
	Cwd  string
}

type workspace struct {
	num      int
	id       string
	custom   *string // nil: herdr's automatic label (autoLabel)
	tabs     []*tab  // by position
	nextTab  int
	nextPane int
	active   *tab
}

type tab struct {
	ws     *workspace
	num    int
	id     string
	custom *string // nil: auto label (position)
	panes  []*pane // layout order
	focus  *pane
}

type pane struct {
	tab        *tab
	num        int
	id         string
	terminalID string
	label      string // pane.rename

	launchCwd string
	shellCwd  string
	osc7      string
	shell     Proc
	fg        []Proc // empty: idle prompt
	realShell int    // > 0: process facts come live from /proc
	gone      bool

	title    string
	stripped string
	revision uint64

	agent       string
	status      herdr.AgentStatus
	tokens      map[string]string
	metaTitle   string
	metaDisplay string
	stateLabels map[string]string
	seqs        map[string]uint64 // last seq per metadata source
	stateSeq    uint64            // the session's agent state change count at this pane's last change

	session  *herdr.AgentSession // agent_session; replaced, never changed in place
	hookSeqs map[string]uint64   // last seq per agent report source
}

// session is the fake's model of herdr's app state. All access holds Server.mu.
type session struct {
	workspaces []*workspace
	nextWS     int
	focusedWS  *workspace
	lastFocus  string // pane id the focus trio was last emitted for
	nextPID    int
	nextTerm   int
	// stateSeq counts agent state changes over the whole session, like
	// herdr's next_agent_state_change_seq (src/app/actions.rs@v0.8.2).
	stateSeq uint64
	// away: the person's terminal, where herdr's client runs, has lost
	// the focus (OuterFocus).
	away bool
}

func (ws *workspace) tabPosition(t *tab) int {
	return slices.Index(ws.tabs, t)
}

func (t *tab) label() string {
	if t.custom != nil {
		return *t.custom
	}
	return strconv.Itoa(t.ws.tabPosition(t) + 1)
}

// statusRank orders statuses by how much attention they want, which is how
// herdr picks a tab's and a workspace's status from their panes: blocked >
// done > working > idle > unknown (src/app/api_helpers.rs@v0.8.2
// tab_attention_priority, src/workspace/aggregate.rs@v0.8.2).
func statusRank(s herdr.AgentStatus) int {
	switch s {
	case herdr.StatusBlocked:
		return 4
	case herdr.StatusDone:
		return 3
	case herdr.StatusWorking:
		return 2
	case herdr.StatusIdle:
		return 1
	}
	return 0
}

func worst(panes []*pane) herdr.AgentStatus {
	out := herdr.StatusUnknown
	for _, p := range panes {
		if statusRank(p.agentStatus()) > statusRank(out) {
			out = p.agentStatus()
		}
	}
	return out
}

func (p *pane) agentStatus() herdr.AgentStatus {
	if p.agent == "" || p.status == "" {
		return herdr.StatusUnknown
	}
	return p.status
}

func (s *session) wsIndex(ws *workspace) int { return slices.Index(s.workspaces, ws) }

func (s *session) focusedPane() *pane {
	if s.focusedWS == nil || s.focusedWS.active == nil {
		return nil
	}
	return s.focusedWS.active.focus
}

func (s *session) tabFocused(t *tab) bool { return s.focusedWS == t.ws && t.ws.active == t }

func (s *session) wsInfo(ws *workspace) herdr.Workspace {
	var panes []*pane
	for _, t := range ws.tabs {
		panes = append(panes, t.panes...)
	}
	info := herdr.Workspace{
		ID: ws.id, Number: s.wsIndex(ws) + 1, Label: ws.label(), Focused: s.focusedWS == ws,
		PaneCount: len(panes), TabCount: len(ws.tabs), AgentStatus: worst(panes),
	}
	if ws.active != nil {
		info.ActiveTabID = ws.active.id
	}
	return info
}

func (s *session) tabInfo(t *tab) herdr.Tab {
	return herdr.Tab{
		ID: t.id, WorkspaceID: t.ws.id, Number: t.num, Label: t.label(),
		Focused: s.tabFocused(t), PaneCount: len(t.panes), AgentStatus: worst(t.panes),
	}
}

func (s *session) paneInfo(p *pane, protocol int) herdr.Pane {
	cwd, fgCwd := p.cwds(protocol)
	info := herdr.Pane{
		ID: p.id, TerminalID: p.terminalID, WorkspaceID: p.tab.ws.id, TabID: p.tab.id,
		Focused: s.focusedPane() == p, Cwd: cwd, ForegroundCwd: fgCwd, Label: p.label,
		Agent: p.agent, Title: p.metaTitle, TerminalTitle: p.title, TerminalTitleStripped: p.stripped,
		DisplayAgent: p.metaDisplay, AgentStatus: p.agentStatus(), Revision: p.revision,
	}
	if len(p.stateLabels) > 0 {
		info.StateLabels = maps.Clone(p.stateLabels)
	}
	if len(p.tokens) > 0 {
		info.Tokens = maps.Clone(p.tokens)
	}
	if p.session != nil {
		as := *p.session
		info.AgentSession = &as
	}
	return info
}

// scrollInfo is herdr's PaneScrollInfo. The simulator's panes never
// scroll back, and show as many rows as the simulated layout gives them.
type scrollInfo struct {
	OffsetFromBottom    uint64 `json:"offset_from_bottom"`
	MaxOffsetFromBottom uint64 `json:"max_offset_from_bottom"`
	ViewportRows        uint64 `json:"viewport_rows"`
}

// paneWire is PaneInfo as herdr writes it: herdr.Pane, and on protocol 20
// the scroll position, which herdr 0.8.2 sends for every pane with a live
// terminal (src/app/creation.rs@v0.8.2 pane_info). A live 0.9.0
// pane_updated line carried none, so 22 leaves it out; 17 and 19 are
// unverified and leave it out too.
type paneWire struct {
	herdr.Pane
	scroll *scrollInfo
}

// MarshalJSON puts scroll where herdr declares it: just before revision,
// herdr.Pane's last field.
func (p paneWire) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(p.Pane)
	if err != nil || p.scroll == nil {
		return b, err
	}
	sc, err := json.Marshal(p.scroll)
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndex(b, []byte(`,"revision":`))
	if i < 0 {
		return nil, errors.New("herdrsim: a pane's JSON has no revision")
	}
	out := append(b[:i:i], `,"scroll":`...)
	out = append(out, sc...)
	return append(out, b[i:]...), nil
}

// paneWire is p's PaneInfo for the wire, in the played protocol.
func (s *session) paneWire(p *pane, plays int) paneWire {
	w := paneWire{Pane: s.paneInfo(p, plays)}
	if plays == 20 {
		w.scroll = &scrollInfo{ViewportRows: layoutHeight}
	}
	return w
}

// agentInfo is herdr's AgentInfo, for session.snapshot's agents list.
type agentInfo struct {
	TerminalID            string              `json:"terminal_id"`
	Agent                 string              `json:"agent,omitempty"`
	Title                 string              `json:"title,omitempty"`
	TerminalTitle         string              `json:"terminal_title,omitempty"`
	TerminalTitleStripped string              `json:"terminal_title_stripped,omitempty"`
	DisplayAgent          string              `json:"display_agent,omitempty"`
	AgentStatus           herdr.AgentStatus   `json:"agent_status"`
	StateLabels           map[string]string   `json:"state_labels,omitempty"`
	Tokens                map[string]string   `json:"tokens,omitempty"`
	AgentSession          *herdr.AgentSession `json:"agent_session,omitempty"`
	WorkspaceID           string              `json:"workspace_id"`
	TabID                 string              `json:"tab_id"`
	PaneID                string              `json:"pane_id"`
	Focused               bool                `json:"focused"`
	StateChangeSeq        uint64              `json:"state_change_seq"`
	Cwd                   string              `json:"cwd,omitempty"`
	ForegroundCwd         string              `json:"foreground_cwd,omitempty"`
	Revision              uint64              `json:"revision"`
}

type layoutRect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type layoutPane struct {
	PaneID  string     `json:"pane_id"`
	Focused bool       `json:"focused"`
	Rect    layoutRect `json:"rect"`
}

type layoutSplit struct {
	ID        string     `json:"id"`
	Direction string     `json:"direction"`
	Ratio     float64    `json:"ratio"`
	Rect      layoutRect `json:"rect"`
}

// layoutSnapshot is herdr's PaneLayoutSnapshot. The fake has no screen, so
// panes are laid side by side in a 200x50 area, splitting to the right.
type layoutSnapshot struct {
	WorkspaceID   string        `json:"workspace_id"`
	TabID         string        `json:"tab_id"`
	Zoomed        bool          `json:"zoomed"`
	Area          layoutRect    `json:"area"`
	FocusedPaneID string        `json:"focused_pane_id"`
	Panes         []layoutPane  `json:"panes"`
	Splits        []layoutSplit `json:"splits"`
}

// The simulated screen every tab's layout fills.
const layoutWidth, layoutHeight = 200, 50

func (s *session) layout(t *tab) layoutSnapshot {
	const w, h = layoutWidth, layoutHeight
	l := layoutSnapshot{WorkspaceID: t.ws.id, TabID: t.id, Area: layoutRect{Width: w, Height: h},
		Panes: []layoutPane{}, Splits: []layoutSplit{}}
	if t.focus != nil {
		l.FocusedPaneID = t.focus.id
	}
	n := len(t.panes)
	for i, p := range t.panes {
		x := i * w / n
		l.Panes = append(l.Panes, layoutPane{PaneID: p.id, Focused: p == t.focus,
			Rect: layoutRect{X: x, Width: (i+1)*w/n - x, Height: h}})
		if i > 0 {
			// nested right splits: split i divides what is left after pane
			// i-1, so it is the right child of the one before, and its id
			// is herdr's split_<n>_<path> (src/app/api/panes.rs@v0.8.2
			// split_path_id), "root" or one "1" per step to the right.
			path := strings.Repeat("1", i-1)
			if path == "" {
				path = "root"
			}
			l.Splits = append(l.Splits, layoutSplit{ID: fmt.Sprintf("split_%d_%s", i-1, path), Direction: "right",
				Ratio: 1 / float64(n-i+1), Rect: layoutRect{X: (i - 1) * w / n, Width: w - (i-1)*w/n, Height: h}})
		}
	}
	return l
}

// sessionSnapshot is herdr's SessionSnapshot (layouts and agents included,
// which herdr.Snapshot leaves out).
type sessionSnapshot struct {
	Version            string            `json:"version"`
	Protocol           int               `json:"protocol"`
	FocusedWorkspaceID string            `json:"focused_workspace_id,omitempty"`
	FocusedTabID       string            `json:"focused_tab_id,omitempty"`
	FocusedPaneID      string            `json:"focused_pane_id,omitempty"`
	Workspaces         []herdr.Workspace `json:"workspaces"`
	Tabs               []herdr.Tab       `json:"tabs"`
	Panes              []paneWire        `json:"panes"`
	Layouts            []layoutSnapshot  `json:"layouts"`
	Agents             []agentInfo       `json:"agents"`
}

// snapshot reports protocol; plays picks the per-protocol field rules.
func (s *session) snapshot(version string, protocol, plays int) sessionSnapshot {
	snap := sessionSnapshot{Version: version, Protocol: protocol, Workspaces: []herdr.Workspace{},
		Tabs: []herdr.Tab{}, Panes: []paneWire{}, Layouts: []layoutSnapshot{}, Agents: []agentInfo{}}
	if fp := s.focusedPane(); fp != nil {
		snap.FocusedWorkspaceID, snap.FocusedTabID, snap.FocusedPaneID = fp.tab.ws.id, fp.tab.id, fp.id
	}
	for _, ws := range s.workspaces {
		snap.Workspaces = append(snap.Workspaces, s.wsInfo(ws))
		for _, t := range ws.tabs {
			snap.Tabs = append(snap.Tabs, s.tabInfo(t))
			snap.Layouts = append(snap.Layouts, s.layout(t))
			for _, p := range t.panes {
				pw := s.paneWire(p, plays)
				pi := pw.Pane
				snap.Panes = append(snap.Panes, pw)
				if p.agent != "" {
					snap.Agents = append(snap.Agents, agentInfo{TerminalID: pi.TerminalID, Agent: pi.Agent,
						Title: pi.Title, TerminalTitle: pi.TerminalTitle, TerminalTitleStripped: pi.TerminalTitleStripped,
						DisplayAgent: pi.DisplayAgent, AgentStatus: pi.AgentStatus, StateLabels: pi.StateLabels,
						Tokens: pi.Tokens, AgentSession: pi.AgentSession, WorkspaceID: pi.WorkspaceID, TabID: pi.TabID, PaneID: pi.ID,
						Focused: pi.Focused, StateChangeSeq: p.stateSeq, Cwd: pi.Cwd, ForegroundCwd: pi.ForegroundCwd, Revision: pi.Revision})
				}
			}
		}
	}
	return snap
}

// ---- id resolution (docs/herdr.md §5) ----

func (s *session) findWorkspace(id string) *workspace {
	for _, ws := range s.workspaces {
		if ws.id == id {
			return ws
		}
	}
	pos := strings.TrimPrefix(id, "w_")
	if n, err := strconv.Atoi(pos); err == nil && pos != "" && pos[0] != '+' && n >= 1 && n <= len(s.workspaces) {
		return s.workspaces[n-1]
	}
	return nil
}

func (s *session) findTab(id string) *tab {
	if rest, ok := strings.CutPrefix(id, "t_"); ok { // legacy t_<ws>_<N>, by position
		if i := strings.LastIndexByte(rest, '_'); i > 0 {
			return s.tabAt(rest[:i], rest[i+1:])
		}
		return nil
	}
	wsID, rest, ok := strings.Cut(id, ":")
	if !ok {
		return nil
	}
	if strings.HasPrefix(rest, "t") {
		ws := s.findWorkspace(wsID)
		n, err := herdr.DecodeNumber(rest[1:])
		if ws == nil || err != nil {
			return nil
		}
		for _, t := range ws.tabs {
			if t.num == n {
				return t
			}
		}
		return nil
	}
	return s.tabAt(wsID, rest)
}

func (s *session) tabAt(wsID, pos string) *tab {
	ws := s.findWorkspace(wsID)
	n, err := strconv.Atoi(pos)
	if ws == nil || err != nil || pos[0] == '+' || n < 1 || n > len(ws.tabs) {
		return nil
	}
	return ws.tabs[n-1]
}

func (s *session) findPane(id string) *pane {
	wsID, num := "", 0
	if a, rest, ok := strings.Cut(id, ":"); ok && strings.HasPrefix(rest, "p") {
		n, err := herdr.DecodeNumber(rest[1:])
		if err != nil {
			return nil
		}
		wsID, num = a, n
	} else if i := strings.LastIndexByte(id, '-'); i > 0 { // legacy <ws>-<N>
		n, err := strconv.Atoi(id[i+1:])
		if err != nil {
			return nil
		}
		wsID, num = id[:i], n
	} else {
		return nil
	}
	ws := s.findWorkspace(wsID)
	if ws == nil || ws.id != wsID {
		return nil
	}
	for _, t := range ws.tabs {
		for _, p := range t.panes {
			if p.num == num {
				return p
			}
		}
	}
	return nil
}

// ---- process facts ----

func commName(p Proc) string {
	name := p.Name
	if name == "" && len(p.Argv) > 0 {
		name = filepath.Base(p.Argv[0])
	}
	if len(name) > 15 {
		name = name[:15]
	}
	return name
}

func processOf(p Proc) herdr.Process {
	out := herdr.Process{PID: p.PID, Name: commName(p), Cwd: p.Cwd}
	for _, a := range p.Argv {
		if a != "" {
			out.Argv = append(out.Argv, a)
		}
	}
	out.Cmdline = strings.Join(out.Argv, " ")
	return out
}

// processInfo builds pane.process_info's payload: the shell at an idle
// prompt, else the foreground group sorted by pid; tty is never set.
func (p *pane) processInfo() herdr.ProcessInfo {
	if p.realShell > 0 {
		return liveProcessInfo(p.id, p.realShell)
	}
	info := herdr.ProcessInfo{PaneID: p.id, ShellPID: p.shell.PID}
	group := p.fg
	if len(group) == 0 {
		sh := p.shell
		sh.Cwd = p.shellCwd
		group = []Proc{sh}
	}
	info.ForegroundPGID = group[0].PID
	for _, pr := range group {
		info.ForegroundProcesses = append(info.ForegroundProcesses, processOf(pr))
	}
	slices.SortFunc(info.ForegroundProcesses, func(a, b herdr.Process) int { return a.PID - b.PID })
	return info
}

// cwds computes cwd and foreground_cwd (docs/herdr.md §9): cwd is the
// sticky OSC 7 report, else the shell's cwd, else the launch cwd. Up to 20
// foreground_cwd is the foreground leader's cwd, preferring another member's
// when the leader sits where the shell does; 0.9 (22) follows the leader.
func (p *pane) cwds(protocol int) (cwd, fgCwd string) {
	if p.realShell > 0 {
		return liveCwds(p, protocol)
	}
	shellCwd := p.shellCwd
	cwd = firstNonEmpty(p.osc7, shellCwd, p.launchCwd)
	if len(p.fg) == 0 {
		return cwd, shellCwd
	}
	fgCwd = p.fg[0].Cwd
	if fgCwd == shellCwd && protocol < 22 {
		for _, pr := range p.fg[1:] {
			if pr.Cwd != "" && pr.Cwd != shellCwd {
				return cwd, pr.Cwd
			}
		}
	}
	return cwd, fgCwd
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// stripTitle is herdr's stripped_terminal_title (src/terminal/title.rs,
// docs/herdr.md §8): trim, then drop ONE leading activity glyph (a braille
// spinner frame or one of glyphs) only when whitespace or the end follows
// it, and trim again. Anything else is kept as is, glyphs further in too.
// An empty result is "no stripped title".
func stripTitle(title, glyphs string) string {
	title = strings.TrimSpace(title)
	first, size := utf8.DecodeRuneInString(title)
	if title == "" || (first == utf8.RuneError && size <= 1) {
		return title
	}
	rest := title[size:]
	recognised := (first >= 0x2800 && first <= 0x28FF) || strings.ContainsRune(glyphs, first)
	if next, _ := utf8.DecodeRuneInString(rest); recognised && (rest == "" || unicode.IsSpace(next)) {
		return strings.TrimSpace(rest)
	}
	return title
}
