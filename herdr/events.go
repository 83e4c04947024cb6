package herdr

// EventKind is the dotted name of an event herdr puts on a stream
// ("tab.renamed"), whichever envelope dialect carried it. The kinds this
// client knows are the constants below; a newer herdr's other kinds come
// through with their normalised name.
type EventKind string

// The event kinds of protocols 17 to 22 (EventKind and
// SubscriptionEventKind in herdr's schemas).
const (
	WorkspaceCreated         EventKind = "workspace.created"
	WorkspaceUpdated         EventKind = "workspace.updated"
	WorkspaceMetadataUpdated EventKind = "workspace.metadata_updated"
	WorkspaceClosed          EventKind = "workspace.closed"
	WorkspaceRenamed         EventKind = "workspace.renamed"
	WorkspaceMoved           EventKind = "workspace.moved"
	WorkspaceReordered       EventKind = "workspace.reordered"
	WorkspaceFocused         EventKind = "workspace.focused"
	WorktreeCreated          EventKind = "worktree.created"
	WorktreeOpened           EventKind = "worktree.opened"
	WorktreeRemoved          EventKind = "worktree.removed"
	TabCreated               EventKind = "tab.created"
	TabClosed                EventKind = "tab.closed"
	TabRenamed               EventKind = "tab.renamed"
	TabMoved                 EventKind = "tab.moved"
	TabFocused               EventKind = "tab.focused"
	PaneCreated              EventKind = "pane.created"
	PaneClosed               EventKind = "pane.closed"
	PaneUpdated              EventKind = "pane.updated"
	PaneFocused              EventKind = "pane.focused"
	PaneMoved                EventKind = "pane.moved"
	PaneOutputChanged        EventKind = "pane.output_changed"
	PaneExited               EventKind = "pane.exited"
	PaneAgentDetected        EventKind = "pane.agent_detected"
	PaneAgentStatusChanged   EventKind = "pane.agent_status_changed"
	PaneOutputMatched        EventKind = "pane.output_matched"
	PaneScrollChanged        EventKind = "pane.scroll_changed"
	LayoutUpdated            EventKind = "layout.updated"
)

// eventKinds are every kind herdr can put on a stream. Bus events arrive
// snake_case; the dotted name cannot be recovered by splitting at the
// first underscore for all of them, hence the table.
var eventKinds = []EventKind{
	WorkspaceCreated, WorkspaceUpdated, WorkspaceMetadataUpdated, WorkspaceClosed,
	WorkspaceRenamed, WorkspaceMoved, WorkspaceReordered, WorkspaceFocused,
	WorktreeCreated, WorktreeOpened, WorktreeRemoved,
	TabCreated, TabClosed, TabRenamed, TabMoved, TabFocused,
	PaneCreated, PaneClosed, PaneUpdated, PaneFocused, PaneMoved,
	PaneOutputChanged, PaneExited, PaneAgentDetected, PaneAgentStatusChanged,
	PaneOutputMatched, PaneScrollChanged, LayoutUpdated,
}

// Object is what an event is about.
type Object uint8

// The objects of events.
const (
	OtherObject Object = iota
	WorkspaceObject
	TabObject
	PaneObject
)

// Object says what the event kind is about, by its noun.
func (k EventKind) Object() Object {
	for i := 0; i < len(k); i++ {
		if k[i] == '.' {
			switch k[:i] {
			case "workspace":
				return WorkspaceObject
			case "tab":
				return TabObject
			case "pane":
				return PaneObject
			}
			return OtherObject
		}
	}
	return OtherObject
}

// Event is one event of a stream, its payload typed: the ids it names,
// a label (a rename's, a created tab's), and what else a kind carries.
type Event struct {
	Kind        EventKind
	TabID       string
	PaneID      string
	WorkspaceID string
	Label       string
	// Pane is the pane a pane.created, pane.updated or pane.moved
	// carries, as herdr's PaneInfo; nil for other kinds.
	Pane *Pane
	// Agent is the agent a pane.agent_detected names: the one that came,
	// or (Released) the one that left; "" when herdr names none.
	Agent string
	// Released: a pane.agent_detected says the agent left the pane.
	Released bool
	// Status is a pane.agent_status_changed's status.
	Status AgentStatus
}

// fill takes a payload's fields in; nested objects fill what the flat
// ids leave empty.
func (ev *Event) fill(d eventData) {
	ev.TabID, ev.PaneID, ev.WorkspaceID, ev.Label = d.TabID, d.PaneID, d.WorkspaceID, d.Label
	ev.Agent, ev.Status, ev.Released = d.Agent, d.Status, d.Released
	if t := d.Tab; t != nil {
		ev.TabID = firstNonEmpty(ev.TabID, t.TabID)
		ev.WorkspaceID = firstNonEmpty(ev.WorkspaceID, t.WorkspaceID)
		ev.Label = firstNonEmpty(ev.Label, t.Label)
	}
	if p := d.Pane; p != nil {
		ev.Pane = p
		ev.PaneID = firstNonEmpty(ev.PaneID, p.ID)
		ev.TabID = firstNonEmpty(ev.TabID, p.TabID)
		ev.WorkspaceID = firstNonEmpty(ev.WorkspaceID, p.WorkspaceID)
	}
	if w := d.Workspace; w != nil {
		ev.WorkspaceID = firstNonEmpty(ev.WorkspaceID, w.WorkspaceID)
		if ev.Kind.Object() == WorkspaceObject {
			ev.Label = firstNonEmpty(ev.Label, w.Label)
		}
	}
}

// Revision is the revision of the pane an event carries, 0 when none.
func (ev Event) Revision() uint64 {
	if ev.Pane == nil {
		return 0
	}
	return ev.Pane.Revision
}

// ParseEvent reads one line of an event stream, either envelope dialect:
// what a test that feeds a subscriber itself decodes herdr's lines with.
func ParseEvent(line []byte) (Event, error) { return parseEvent("event line", "", line) }
