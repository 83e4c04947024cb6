package herdr

// Wire types of herdr's JSON socket API (docs/herdr.md §5). Only the fields a
// tab namer needs are declared; unknown fields are ignored when decoding,
// which is what lets a newer protocol work unchanged.

// AgentStatus is a pane's or tab's agent status as herdr reports it.
type AgentStatus string

// The statuses herdr emits. "done" means idle and not yet seen by the user.
const (
	StatusIdle    AgentStatus = "idle"
	StatusWorking AgentStatus = "working"
	StatusBlocked AgentStatus = "blocked"
	StatusDone    AgentStatus = "done"
	StatusUnknown AgentStatus = "unknown"
)

// Pong is the answer to ping. Version is herdr's release ("0.8.2", with a
// channel suffix on non-stable builds); Capabilities is nil when the server
// sent null or nothing.
type Pong struct {
	Version      string        `json:"version"`
	Protocol     int           `json:"protocol"`
	Capabilities *Capabilities `json:"capabilities"`
}

// Workspace is herdr's WorkspaceInfo. Number is the workspace's position.
type Workspace struct {
	ID          string            `json:"workspace_id"`
	Number      int               `json:"number"`
	Label       string            `json:"label"`
	Focused     bool              `json:"focused"`
	PaneCount   int               `json:"pane_count"`
	TabCount    int               `json:"tab_count"`
	ActiveTabID string            `json:"active_tab_id"`
	AgentStatus AgentStatus       `json:"agent_status"`
	Tokens      map[string]string `json:"tokens,omitempty"`
}

// Tab is herdr's TabInfo. Number is the stable creation counter encoded in
// ID; Label is the custom name or, when there is none, the 1-based position
// as a decimal string (docs/herdr.md §6).
type Tab struct {
	ID          string      `json:"tab_id"`
	WorkspaceID string      `json:"workspace_id"`
	Number      int         `json:"number"`
	Label       string      `json:"label"`
	Focused     bool        `json:"focused"`
	PaneCount   int         `json:"pane_count"`
	AgentStatus AgentStatus `json:"agent_status"`
}

// Pane is herdr's PaneInfo. Revision moves only on stripped-title and token
// changes (docs/herdr.md §8), never on program changes.
type Pane struct {
	ID                    string            `json:"pane_id"`
	TerminalID            string            `json:"terminal_id"`
	WorkspaceID           string            `json:"workspace_id"`
	TabID                 string            `json:"tab_id"`
	Focused               bool              `json:"focused"`
	Cwd                   string            `json:"cwd,omitempty"`
	ForegroundCwd         string            `json:"foreground_cwd,omitempty"`
	Label                 string            `json:"label,omitempty"`
	Agent                 string            `json:"agent,omitempty"`
	Title                 string            `json:"title,omitempty"`
	TerminalTitle         string            `json:"terminal_title,omitempty"`
	TerminalTitleStripped string            `json:"terminal_title_stripped,omitempty"`
	DisplayAgent          string            `json:"display_agent,omitempty"`
	AgentStatus           AgentStatus       `json:"agent_status"`
	StateLabels           map[string]string `json:"state_labels,omitempty"`
	Tokens                map[string]string `json:"tokens,omitempty"`
	AgentSession          *AgentSession     `json:"agent_session,omitempty"`
	Revision              uint64            `json:"revision"`
}

// AgentSession is herdr's AgentSessionInfo: the agent session an official
// integration (Source "herdr:claude", ...) reported for the pane with
// pane.report_agent or pane.report_agent_session. Kind is "id" (a session
// id, Claude Code's and Codex's) or "path" (a session file, pi's and
// omp's). herdr emits no event when it changes and leaves revision alone;
// it drops the session when the agent's process exits.
type AgentSession struct {
	Source string `json:"source"`
	Agent  string `json:"agent"`
	Kind   string `json:"kind"`
	Value  string `json:"value"`
}

// The kinds of AgentSession.
const (
	SessionKindID   = "id"
	SessionKindPath = "path"
)

// Snapshot is herdr's SessionSnapshot: workspaces by position, tabs by
// workspace then position, panes by workspace, tab, then layout order.
type Snapshot struct {
	Version            string      `json:"version"`
	Protocol           int         `json:"protocol"`
	FocusedWorkspaceID string      `json:"focused_workspace_id,omitempty"`
	FocusedTabID       string      `json:"focused_tab_id,omitempty"`
	FocusedPaneID      string      `json:"focused_pane_id,omitempty"`
	Workspaces         []Workspace `json:"workspaces"`
	Tabs               []Tab       `json:"tabs"`
	Panes              []Pane      `json:"panes"`
}

// Process is one member of a pane's foreground process group.
type Process struct {
	PID     int      `json:"pid"`
	Name    string   `json:"name"`
	Argv0   string   `json:"argv0,omitempty"`
	Argv    []string `json:"argv,omitempty"`
	Cmdline string   `json:"cmdline,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
}

// ProcessInfo is herdr's PaneProcessInfo. At an idle prompt the foreground
// group is the shell itself. Zero ShellPID or ForegroundPGID means unknown.
type ProcessInfo struct {
	PaneID              string    `json:"pane_id"`
	ShellPID            int       `json:"shell_pid,omitempty"`
	ForegroundPGID      int       `json:"foreground_process_group_id,omitempty"`
	ForegroundProcesses []Process `json:"foreground_processes,omitempty"`
}
