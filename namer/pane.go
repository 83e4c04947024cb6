package namer

import "github.com/herdrtabrenamer/herdrtabrenamer/herdr"

// PlanPane plans one pane's name the way Plan plans a tab's, with the pane
// in the lead pane's place: {proc}, {dir}, {agent}, {task}, {title},
// {session} and {token.*} are the pane's own, and so are {status} and
// {icon} (its agent's status, where a tab shows its panes' most pressing
// one). {number}, {index} and {workspace} stay the tab's. The namer is
// one built with Config.Panes.
func (n *Namer) PlanPane(tab herdr.Tab, ws herdr.Workspace, pane herdr.Pane) Plan {
	tab.AgentStatus = pane.AgentStatus
	p := n.Plan(tab, ws, []herdr.Pane{pane})
	p.LeadWhy = "the pane itself"
	return p
}
