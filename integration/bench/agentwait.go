//go:build unix

package main

import (
	"fmt"
	"os"
	"time"
)

// What holding agent.wait costs herdr at rest. herdr 0.8.2 answers
// agent.wait on the connection's own thread: it holds the connection, and
// every 100 ms it checks the connection and scans its event hub, asking
// the app thread for the agent only when an event for the agent's pane
// came. A client that follows agents with it holds one such wait per
// agent. For each session (waitCases), a real herdr of its own idles in
// spans of realIdleFor, in turn without waits and with one agent.wait
// held per agent, restSpans of each, so both see the same drift of the
// machine; then, the waits held, a status change is timed from the report
// to the wait's answer.

// waitCases are the sessions of the agentwait part; every pane holds an
// agent.
var waitCases = []restCase{{tabs: 6, agents: 6}, {tabs: 20, agents: 20}, {tabs: 1, agents: 2, split: true}}

const (
	// waitSettle is how long herdr is left after waits start or end
	// before a span: it reads a request within its 100 ms read poll, and
	// a wait's thread sees its connection closed within 100 ms.
	waitSettle = 2 * time.Second
	// sessionSettle is how long a new session is left before its first
	// span, past the start-up of its shells and agents.
	sessionSettle = 10 * time.Second
)

// agentWaitRows measures every wait case and returns its rows and their
// note.
func (w *world) agentWaitRows(bin string) ([]row, string, error) {
	var rows []row
	for _, c := range waitCases {
		r, err := w.waitCase(bin, c)
		if err != nil {
			return nil, "", fmt.Errorf("%v: %w", c, err)
		}
		rows = append(rows, r...)
		fmt.Fprintf(os.Stderr, "bench: agent.wait at rest, %v done\n", c)
	}
	note := fmt.Sprintf("agent.wait at rest: a real herdr of its own per session, logging at debug level (HERDR_LOG=herdr=debug), each pane a bash with no hooks and an agent reported idle with `pane.report_agent` (the 2 agents of one tab in its first pane and one split off it); with waits, one `agent.wait` per agent on its own connection (sent with `herdr.Client.Call`: the client has no method of its own for it), `until` every status but the agent's, no `timeout_ms`, sent again whenever herdr answers; %d spans of %v without waits and %d with, in turn, each CPU figure their median (their range beside it), points the medians' difference; requests are herdr's own log lines of them during the spans (the waits went out before); the status latency runs from herdr's answer to `pane.report_agent` (working) to the first agent's wait answering with it, every agent's wait held, reports 0.5-0.6 s apart (the gap varies over one 100 ms poll of the wait), each followed by one of idle.",
		restSpans, realIdleFor, restSpans)
	return rows, note, nil
}

// waitCase runs c's session: its spans without and with waits, then the
// status latency.
func (w *world) waitCase(bin string, c restCase) ([]row, error) {
	rs, panes, err := w.restServer(bin, c)
	if err != nil {
		return nil, err
	}
	panes = panes[:c.agents]
	defer rs.close()
	pid, err := herdrServerPID(rs)
	if err != nil {
		return nil, err
	}
	time.Sleep(sessionSettle)
	alone, waited, err := alternateSpans(rs, pid, panes)
	if err != nil {
		return nil, err
	}
	took, err := waitLatency(rs, panes)
	if err != nil {
		return nil, fmt.Errorf("status latency: %w", err)
	}
	return []row{
		{fmt.Sprintf("real herdr at rest, %v: herdr's CPU, no agent.wait", c), alone.herdr.format(2), "-"},
		{fmt.Sprintf("real herdr at rest, %v: one agent.wait held per agent: herdr's CPU (against none); herdr's requests", c),
			fmt.Sprintf("%s (%+.2f points); %s", waited.herdr.format(2), points(waited, alone), waited.perMinute()), "within 0.15 points"},
		{fmt.Sprintf("real herdr: agent status working -> agent.wait answers, %v, every agent's wait held (%d changes)", c, len(took)), pcts(took), "-"},
	}, nil
}

// alternateSpans measures restSpans spans without waits and as many with
// one wait held per agent of panes, in turn.
func alternateSpans(rs *realServer, pid int, panes []string) (alone, waited restFigures, err error) {
	for i := range restSpans {
		g, err := measureSpan(rs, pid, 0, realIdleFor)
		if err != nil {
			return alone, waited, fmt.Errorf("span %d without waits: %w", i+1, err)
		}
		alone.add(g)
		if g, err = waitedSpan(rs, pid, panes); err != nil {
			return alone, waited, fmt.Errorf("span %d with waits: %w", i+1, err)
		}
		waited.add(g)
		time.Sleep(waitSettle)
	}
	return alone, waited, nil
}

// waitedSpan holds one wait per agent of panes through a span. None may
// answer: the agents are at rest, and a wait that answered was not held
// throughout.
func waitedSpan(rs *realServer, pid int, panes []string) (restFigures, error) {
	ws, err := holdWaits(rs, panes)
	if err != nil {
		return restFigures{}, err
	}
	time.Sleep(waitSettle)
	g, err := measureSpan(rs, pid, 0, realIdleFor)
	answers, waitErr := ws.stop()
	switch {
	case err != nil:
		return g, err
	case waitErr != nil:
		return g, waitErr
	case answers > 0:
		return g, fmt.Errorf("herdr answered %d waits of agents at rest", answers)
	}
	return g, nil
}
