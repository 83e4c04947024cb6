//go:build unix

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// waitPoll is how often herdr 0.8.2's agent.wait looks for events of its
// agent's pane.
const waitPoll = 100 * time.Millisecond

// agentStatuses are every status herdr 0.8.2 gives an agent.
var agentStatuses = []herdr.AgentStatus{herdr.StatusIdle, herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusDone, herdr.StatusUnknown}

// waitAnswer is herdr's answer to one agent.wait: the agent's status then.
type waitAnswer struct {
	pane   string
	status herdr.AgentStatus
	at     time.Time
}

// waitSet holds one agent.wait per agent, each on its own connection,
// sending it again whenever herdr answers. Every answer goes to answers
// while it has room.
type waitSet struct {
	client  *herdr.Client
	cancel  context.CancelFunc
	holders sync.WaitGroup
	answers chan waitAnswer

	mu       sync.Mutex
	answered int   // answers so far
	err      error // the first failed wait; its holder stopped
}

// holdWaits starts holding a wait on each agent of panes, until any
// status but the one it has now.
func holdWaits(rs *realServer, panes []string) (*waitSet, error) {
	ctx, cancel := context.WithCancel(context.Background())
	// Each call's deadline is the client's timeout: the waits are meant
	// to outlast every span.
	ws := &waitSet{client: herdr.New(rs.srv.Socket, herdr.WithTimeout(24*time.Hour)), cancel: cancel, answers: make(chan waitAnswer, 1024)}
	for _, p := range panes {
		st, err := agentStatus(ctx, rs, p)
		if err != nil {
			ws.stop()
			return nil, err
		}
		ws.holders.Go(func() { ws.hold(ctx, p, st) })
	}
	return ws, nil
}

// agentStatus asks herdr for the status of pane's agent.
func agentStatus(ctx context.Context, rs *realServer, pane string) (herdr.AgentStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var r struct {
		Agent struct {
			Status herdr.AgentStatus `json:"agent_status"`
		} `json:"agent"`
	}
	if err := rs.client.Call(ctx, "agent.get", map[string]any{"target": pane}, &r); err != nil {
		return "", fmt.Errorf("agent.get %s: %w", pane, err)
	}
	return r.Agent.Status, nil
}

// hold keeps a wait on pane's agent, whose status is status, until ctx
// ends or a wait fails.
func (ws *waitSet) hold(ctx context.Context, pane string, status herdr.AgentStatus) {
	for {
		got, err := ws.wait(ctx, pane, status)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			ws.fail(fmt.Errorf("agent.wait on %s: %w", pane, err))
			return
		}
		ws.answer(waitAnswer{pane: pane, status: got, at: time.Now()})
		status = got
	}
}

// wait sends one agent.wait on pane until any status but status, with no
// timeout, and returns the status herdr answers with.
func (ws *waitSet) wait(ctx context.Context, pane string, status herdr.AgentStatus) (herdr.AgentStatus, error) {
	until := slices.DeleteFunc(slices.Clone(agentStatuses), func(s herdr.AgentStatus) bool { return s == status })
	var r struct {
		Agent struct {
			Status herdr.AgentStatus `json:"agent_status"`
		} `json:"agent"`
	}
	if err := ws.client.Call(ctx, "agent.wait", map[string]any{"target": pane, "until": until}, &r); err != nil {
		return "", err
	}
	if r.Agent.Status == "" {
		return "", fmt.Errorf("herdr answered with no agent status")
	}
	return r.Agent.Status, nil
}

// answer counts a and passes it on if answers has room: at rest nobody
// reads them, and a full channel must not stop a holder.
func (ws *waitSet) answer(a waitAnswer) {
	ws.mu.Lock()
	ws.answered++
	ws.mu.Unlock()
	select {
	case ws.answers <- a:
	default:
	}
}

func (ws *waitSet) fail(err error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.err == nil {
		ws.err = err
	}
}

// stop ends every wait, closing its connection, and returns how many
// waits herdr answered and the first that failed.
func (ws *waitSet) stop() (answered int, err error) {
	ws.cancel()
	ws.holders.Wait()
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.answered, ws.err
}

// waitLatency holds one wait per agent of panes and times samples reports
// of working in the first, each followed by one of idle: from herdr's
// answer to the report to the wait's answer with the new status.
func waitLatency(rs *realServer, panes []string) ([]time.Duration, error) {
	ws, err := holdWaits(rs, panes)
	if err != nil {
		return nil, err
	}
	defer ws.stop()
	time.Sleep(waitSettle)
	var took []time.Duration
	for range samples {
		// A gap of whole 100 ms polls would meet herdr's wait at the same
		// point of its poll every time, and every sample would show the
		// same share of it: the gap varies over one poll.
		time.Sleep(sampleGap + rand.N(waitPoll))
		d, err := ws.timedReport(rs, panes[0], herdr.StatusWorking)
		if err != nil {
			return nil, err
		}
		took = append(took, d)
		time.Sleep(sampleGap)
		if _, err := ws.timedReport(rs, panes[0], herdr.StatusIdle); err != nil {
			return nil, err
		}
	}
	return took, nil
}

// timedReport reports status for pane's agent and returns how long from
// herdr's answer until the pane's wait answered with it. herdr shows an
// agent that went idle while nobody looked at its pane as done, and in a
// headless server nobody looks: done answers a report of idle.
func (ws *waitSet) timedReport(rs *realServer, pane string, status herdr.AgentStatus) (time.Duration, error) {
	if err := rs.report(pane, status)(); err != nil {
		return 0, fmt.Errorf("report %s: %w", status, err)
	}
	start := time.Now()
	timeout := time.NewTimer(realWithin)
	defer timeout.Stop()
	for {
		select {
		case a := <-ws.answers:
			if a.pane == pane && (a.status == status || status == herdr.StatusIdle && a.status == herdr.StatusDone) {
				return a.at.Sub(start), nil
			}
		case <-timeout.C:
			_, err := ws.stop()
			return 0, fmt.Errorf("report %s: no wait answered within %v (a wait failed: %v)", status, realWithin, err)
		}
	}
}
