package claim

import (
	"context"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

func TestCompare(t *testing.T) {
	terms := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		name string
		was  state.Server
		now  Identity
		want Verdict
	}{
		{"nothing remembered", state.Server{}, Identity{Peer: "1@1", PeerHerdr: true}, Same},
		{"same terminals, forwarder restarted", state.Server{Peer: "9@9", Terminals: terms("w1:p1", "term_a")},
			Identity{Peer: "10@10", Terminals: terms("w1:p1", "term_a", "w1:p2", "term_b")}, Same},
		{"a pane runs another terminal behind a forwarder", state.Server{Peer: "9@9", Terminals: terms("w1:p1", "term_a")},
			Identity{Peer: "9@9", Terminals: terms("w1:p1", "term_c")}, Restarted},
		{"herdr itself restarted, no pane in common", state.Server{Peer: "5@5", Terminals: terms("w3:p9", "term_a")},
			Identity{Peer: "6@6", PeerHerdr: true, Terminals: terms("w1:p1", "term_x")}, Restarted},
		{"herdr itself, the same process", state.Server{Peer: "5@5"}, Identity{Peer: "5@5", PeerHerdr: true}, Same},
		{"a forwarder, no pane in common", state.Server{Peer: "9@9", Terminals: terms("w3:p9", "term_a")},
			Identity{Peer: "9@9", PeerName: "socat", Terminals: terms("w1:p1", "term_x")}, Unknown},
		{"no peer, no pane in common", state.Server{Terminals: terms("w3:p9", "term_a")},
			Identity{Terminals: terms("w1:p1", "term_x")}, Unknown},
	} {
		if got, why := Compare(c.was, c.now); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

// herdr restarted with its session: a tab locked as it showed herdr's own
// label (its position) and moved since keeps its lock; one locked with a
// label of its own that shows another does not.
func TestCheckKeepsALockedPositionThatMoved(t *testing.T) {
	mem, _ := state.Load("", "")
	mem.InMemory(func(tx *state.Tx) {
		tx.SetServer(state.Server{Terminals: map[string]string{"w1:p1": "term_a"}})
		tx.Lock(state.TabTarget("w1:t2"), "2")
		tx.Lock(state.TabTarget("w1:t3"), "notes")
	})
	snap := &herdr.Snapshot{
		Panes: []herdr.Pane{{ID: "w1:p1", TerminalID: "term_b"}},
		Tabs:  []herdr.Tab{{ID: "w1:t2", Label: "1"}, {ID: "w1:t3", Label: "3"}},
	}
	res, err := Check(context.Background(), "", snap, mem, false, time.Now())
	if err != nil || !res.Revalidated {
		t.Fatalf("Check = %+v, %v: want a restart, revalidated", res, err)
	}
	if !mem.Tab("w1:t2").Locked || mem.Has(state.TabTarget("w1:t3")) {
		t.Errorf("after the restart: t2 %+v, t3 %+v", mem.Tab("w1:t2"), mem.Tab("w1:t3"))
	}
}
