package herdrtest

import (
	"bufio"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// herdr's own test inputs for stripped_terminal_title (src/terminal/title.rs
// at v0.8.2), and what each release makes of them: 0.8.2 added the quarter
// circles, so 0.7.5 and 0.8.0 keep "◐ task" whole.
func TestTitleStripping(t *testing.T) {
	tests := []struct {
		title    string
		want     string // 0.8.2 and later; "" = no stripped title
		wantOld  string // 0.7.5 and 0.8.0
		oldDiffs bool
	}{
		{title: "⠋ task", want: "task"},
		{title: "✳ task", want: "task"},
		{title: "  ⠙   task  ", want: "task"},
		{title: "✢ task", want: "task"},
		{title: "✻ task", want: "task"},
		{title: "◐ task", want: "task", wantOld: "◐ task", oldDiffs: true},
		{title: "◓ task", want: "task", wantOld: "◓ task", oldDiffs: true},
		{title: "◑ task", want: "task", wantOld: "◑ task", oldDiffs: true},
		{title: "◒ task", want: "task", wantOld: "◒ task", oldDiffs: true},
		{title: "⠋ ⠙ task", want: "⠙ task"},
		{title: "★task", want: "★task"},
		{title: "★ production", want: "★ production"},
		{title: "✨ task", want: "✨ task"},
		{title: "☼ status", want: "☼ status"},
		{title: "@ task", want: "@ task"},
		{title: "task ⠋ detail", want: "task ⠋ detail"},
		{title: "[prod] task", want: "[prod] task"},
		{title: " ⠋ 修复🙂标题 ", want: "修复🙂标题"},
		{title: "  ", want: ""},
		{title: "⠋   ", want: ""},
		// beyond herdr's list: a glyph needs whitespace or the end after it
		{title: "✳task", want: "✳task"},
		{title: "a · b", want: "a · b"},
		{title: "·", want: ""},
	}
	for _, rel := range []string{"0.7.5", "0.8.0", "0.8.2", "0.9.0", "0.9.3"} {
		t.Run(rel, func(t *testing.T) {
			s := start(t, herdrsim.WithRelease(rel))
			_, _, p := s.NewWorkspace("w", "/tmp")
			for _, tt := range tests {
				want := tt.want
				if tt.oldDiffs && (rel == "0.7.5" || rel == "0.8.0") {
					want = tt.wantOld
				}
				s.SetTitle(p, tt.title)
				got := result(t, call(t, s, "pane.get", map[string]any{"pane_id": p}))["pane"].(map[string]any)
				stripped, _ := got["terminal_title_stripped"].(string)
				if stripped != want {
					t.Errorf("%q: stripped %q, want %q", tt.title, stripped, want)
				}
			}
		})
	}
}

// revision and pane_updated follow the stripped title only.
func TestRevisionFollowsStrippedTitle(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	steps := []struct {
		title string
		rev   uint64
	}{
		{"⠋ task", 1},        // "task"
		{"⠙ task", 1},        // spinner frame: same stripped title
		{"task", 1},          // same
		{"⠋ ⠙ task", 2},      // "⠙ task": only one glyph goes
		{"task ⠋ detail", 3}, // inner glyph kept
		{"task ⠙ detail", 4}, // so an inner spinner moves revision
		{"✳task", 5},         // glyph glued to the text is text
		{"✳ task", 6},        // "task"
		{"  ", 7},            // cleared
		{"", 7},              // still no stripped title
	}
	for _, st := range steps {
		s.SetTitle(p, st.title)
		if pn, _ := s.Pane(p); pn.Revision != st.rev {
			t.Fatalf("after %q: revision %d, want %d", st.title, pn.Revision, st.rev)
		}
	}
}

// ping and snapshot report what each release reports, capabilities included.
func TestReleases(t *testing.T) {
	for _, tt := range []struct {
		opt      herdrsim.Option
		version  string
		protocol float64
		caps     map[string]any
	}{
		{herdrsim.WithRelease("0.7.5"), "0.7.5", 17, map[string]any{"live_handoff": true, "detached_server_daemon": true}},
		{herdrsim.WithProtocol(17), "0.7.5", 17, nil},
		{herdrsim.WithRelease("0.8.0"), "0.8.0", 19, nil},
		{herdrsim.WithProtocol(19), "0.8.0", 19, nil},
		{herdrsim.WithRelease("0.8.2"), "0.8.2", 20, map[string]any{"live_handoff": true, "detached_server_daemon": true}},
		{herdrsim.WithProtocol(20), "0.8.2", 20, nil},
		{herdrsim.WithRelease("0.9.0"), "0.9.0", 22, nil},
		{herdrsim.WithRelease("0.9.3"), "0.9.3", 22, nil},
		{herdrsim.WithProtocol(22), "0.9.1", 22, map[string]any{"live_handoff": true, "detached_server_daemon": true,
			"endpoint_protocol_generation": 1.0, "surface_interest": true, "health_check": true}},
		{herdrsim.WithProtocol(23), "0.10.0", 23, nil},
	} {
		s := start(t, tt.opt)
		r := result(t, call(t, s, "ping", map[string]any{}))
		if r["version"] != tt.version || r["protocol"] != tt.protocol {
			t.Errorf("%s: pong %v", tt.version, r)
		}
		if tt.caps != nil && !reflect.DeepEqual(r["capabilities"], tt.caps) {
			t.Errorf("%s: capabilities %v, want %v", tt.version, r["capabilities"], tt.caps)
		}
		snap := result(t, call(t, s, "session.snapshot", map[string]any{}))["snapshot"].(map[string]any)
		if snap["version"] != tt.version || snap["protocol"] != tt.protocol {
			t.Errorf("%s: snapshot reports %v %v", tt.version, snap["version"], snap["protocol"])
		}
	}
	// 0.9.1 added pane.link.resolve within protocol 22.
	for rel, want := range map[string]string{"0.9.0": "invalid_request", "0.9.1": "not_implemented"} {
		s := start(t, herdrsim.WithRelease(rel))
		if code, _ := errCode(t, call(t, s, "pane.link.resolve", map[string]any{"pane_id": "w1:p1", "viewport_row": 0, "col": 0})); code != want {
			t.Errorf("%s: pane.link.resolve answered %s, want %s", rel, code, want)
		}
	}
	for _, bad := range [][]herdrsim.Option{{herdrsim.WithRelease("0.8.1")}, {herdrsim.WithRelease("0.8.0"), herdrsim.WithProtocol(20)}, {herdrsim.WithProtocol(18)}, {herdrsim.WithProtocol(16)}} {
		if s, err := New(append(bad, herdrsim.WithoutSchemas())...); err == nil {
			s.Close()
			t.Errorf("%v: started, want a refusal", bad)
		}
	}
}

// After server.stop, 0.8.2 and later turn every request but ping away.
func TestServerStopGuard(t *testing.T) {
	for _, tt := range []struct {
		release string
		refuse  bool
	}{{"0.7.5", false}, {"0.8.0", false}, {"0.8.2", true}, {"0.9.1", true}} {
		t.Run(tt.release, func(t *testing.T) {
			s := start(t, herdrsim.WithRelease(tt.release))
			s.NewWorkspace("w", "/tmp")
			if r := result(t, call(t, s, "server.stop", map[string]any{})); r["type"] != "ok" {
				t.Fatalf("server.stop: %v", r)
			}
			m := call(t, s, "tab.list", map[string]any{})
			if _, isErr := m["error"]; isErr != tt.refuse {
				t.Fatalf("tab.list after server.stop: %v, want refused=%v", m, tt.refuse)
			}
			if tt.refuse {
				if code, msg := errCode(t, m); code != "server_unavailable" || msg != "server is shutting down" || m["id"] != "t" {
					t.Fatalf("refusal %v", m)
				}
			}
			if r := result(t, call(t, s, "ping", map[string]any{})); r["type"] != "pong" {
				t.Fatalf("ping after server.stop: %v", r)
			}
			if err := s.Restart(); err != nil {
				t.Fatal(err)
			}
			if r := result(t, call(t, s, "tab.list", map[string]any{})); r["type"] != "tab_list" {
				t.Fatalf("after a restart: %v", r)
			}
		})
	}
}

// eventKinds reads lines until one of kind marker arrives and returns the
// event names before it.
func eventKindsUntil(t *testing.T, st *stream, marker string) []string {
	t.Helper()
	var got []string
	for {
		l := st.next(t)
		k := kinds(t, []string{l})[0]
		if k == marker {
			return got
		}
		got = append(got, k)
	}
}

// Up to 20 every bus subscription replays the ring; on 22 it starts live.
func TestReplayOnlyUpTo20(t *testing.T) {
	for _, tt := range []struct {
		protocol int
		want     []string
	}{
		{17, []string{"tab_created", "tab_renamed", "tab_renamed"}},
		{20, []string{"tab_created", "tab_renamed", "tab_renamed"}},
		{22, []string{"tab_renamed"}},
	} {
		t.Run(fmt.Sprint(tt.protocol), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(tt.protocol))
			ws, tab, _ := s.NewWorkspace("w", "/tmp")
			s.HumanRename(tab, "old")
			st := subscribe(t, s, map[string]any{"type": "tab.created"}, map[string]any{"type": "tab.renamed"})
			if l := st.next(t); l != ack {
				t.Fatalf("ack %q", l)
			}
			s.HumanRename(tab, "new")
			var got []string
			for len(got) < len(tt.want) {
				got = append(got, kinds(t, []string{st.next(t)})...)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events %v, want %v", got, tt.want)
			}
			// One event of our own for each subscription: nothing else
			// may come before them.
			fence, _ := s.NewTab(ws, "/tmp")
			s.HumanRename(fence, "fence")
			if extra := st.before(t, mark(`"tab_created"`, `"tab_id":"`+fence+`"`), mark(`"tab_renamed"`, `"label":"fence"`)); len(extra) > 0 {
				t.Fatalf("extra %q", extra)
			}
		})
	}
}

// Events put into the ring between two rounds: up to 20 one per round per
// subscription, on 22 all of them in one round.
func TestBurstDelivery(t *testing.T) {
	const n = 6
	for _, tt := range []struct {
		protocol int
		rounds   int
	}{{19, n}, {20, n}, {22, 1}} {
		t.Run(fmt.Sprint(tt.protocol), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(tt.protocol))
			ws, _, _ := s.NewWorkspace("w", "/tmp")
			st := subscribe(t, s, map[string]any{"type": "pane.created"})
			st.next(t)
			if tt.protocol < 22 {
				st.next(t) // the replayed root pane; count from after it
			}
			before := s.DeliveryRounds()
			release := s.HoldEvents()
			for range n {
				s.NewTab(ws, "/tmp")
			}
			release()
			for range n {
				if k := kinds(t, []string{st.next(t)}); k[0] != "pane_created" {
					t.Fatalf("got %v", k)
				}
			}
			if got := s.DeliveryRounds() - before; got != tt.rounds {
				t.Fatalf("%d events took %d rounds, want %d", n, got, tt.rounds)
			}
		})
	}
}

func TestEventsLostFault(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	const lostPrefix = `{"id":"sub","error":{"code":"events_lost","message":"`
	t.Run("injected at subscribe", func(t *testing.T) {
		s.InjectFault("events.subscribe", herdrsim.FaultEventsLost, 1)
		st := subscribe(t, s, map[string]any{"type": "tab.renamed"})
		got := st.closed(t)
		if len(got) != 2 || got[0] != ack || !strings.HasPrefix(got[1], lostPrefix) {
			t.Fatalf("got %q", got)
		}
		// one subscription only: the next one streams
		st = subscribe(t, s, map[string]any{"type": "pane.agent_status_changed", "pane_id": p})
		if l := st.next(t); l != ack {
			t.Fatalf("ack %q", l)
		}
	})
	t.Run("open streams", func(t *testing.T) {
		// The stream the subtest above left is closed by its cleanup, but
		// the server notices only at its next round: until then
		// LoseEvents would end it too.
		testutil.WaitFor(t, "the earlier subtest's stream to end", func() bool { return s.OpenStreams() == 0 })
		a := subscribe(t, s, map[string]any{"type": "tab.renamed"})
		b := subscribe(t, s, map[string]any{"type": "pane.agent_status_changed", "pane_id": p})
		a.next(t)
		b.next(t)
		if n := s.OpenStreams(); n != 2 {
			t.Fatalf("%d open streams after two acks, want 2", n)
		}
		before := s.EventsLost()
		s.LoseEvents()
		for _, st := range []*stream{a, b} {
			if got := st.closed(t); len(got) != 1 || !strings.HasPrefix(got[0], lostPrefix) {
				t.Fatalf("got %q", got)
			}
		}
		if n := s.EventsLost() - before; n != 2 {
			t.Fatalf("EventsLost counted %d, want 2", n)
		}
	})
	t.Run("not on 20", func(t *testing.T) {
		rec := &recordingTB{TB: t}
		s20 := Start(rec, schemaOpt(t), herdrsim.WithProtocol(20), herdrsim.WithoutReadPoll())
		s20.InjectFault("events.subscribe", herdrsim.FaultEventsLost, 1)
		s20.LoseEvents()
		if errs := rec.errors(); len(errs) != 2 || !strings.Contains(errs[0], "no events_lost") {
			t.Fatalf("reported %q", errs)
		}
	})
}

// A consumer that stops reading makes herdr's writes block; once the ring
// has evicted events the stream had not looked at, 22 ends it with
// events_lost while others go on. Up to 20 the loss is silent.
func TestSlowConsumerLosesEvents(t *testing.T) {
	big := strings.Repeat("x", 16<<10) // a few lines fill the socket buffer
	for _, tt := range []struct {
		protocol int
		lost     bool
	}{{20, false}, {22, true}} {
		t.Run(fmt.Sprint(tt.protocol), func(t *testing.T) {
			// unchecked: 600 lines of 16 KiB through the validator is slow
			s := Start(t, herdrsim.WithProtocol(tt.protocol), herdrsim.WithTick(10*time.Millisecond), herdrsim.WithoutSchemas(), herdrsim.WithoutReadPoll())
			_, tab, p := s.NewWorkspace("w", "/tmp")
			c, err := net.Dial("unix", s.SocketPath())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, `{"id":"slow","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.updated"}]}}`+"\n")
			// A healthy reader on 22 takes every event too, and keeps up:
			// phase 2 waits for it chunk by chunk, as herdr's own test
			// pushes events slower than its healthy subscribers read.
			healthySubs := []map[string]any{{"type": "tab.renamed"}}
			if tt.lost {
				healthySubs = append(healthySubs, map[string]any{"type": "pane.updated"})
			}
			healthy := subscribe(t, s, healthySubs...)
			healthy.next(t)
			healthyUntil := func(want string) {
				t.Helper()
				for {
					if l := healthy.next(t); strings.Contains(l, want) {
						return
					} else if strings.Contains(l, `"error"`) {
						t.Fatalf("healthy stream: %.200s", l)
					}
				}
			}
			// phase 1: 1.3 MB, more than a socket buffer holds, in one
			// round on 22 (one event on 20); wait until a round of the
			// slow stream (not the healthy one's) took them: its writer is
			// then stuck
			before := s.DeliveryRoundsOf("slow")
			release := s.HoldEvents()
			for i := range 40 {
				s.SetTitle(p, fmt.Sprintf("%d %s", i, big))
			}
			release()
			testutil.WaitFor(t, "a round of the slow stream", func() bool { return s.DeliveryRoundsOf("slow") > before })
			// phase 2: more than the ring holds, while the writer is
			// stuck; small, so that it takes well under herdr's 5 s
			// write timeout even under -race
			for i := range 600 {
				s.SetTitle(p, fmt.Sprintf("b%d", i))
				if tt.lost && i%100 == 99 {
					healthyUntil(fmt.Sprintf(`"terminal_title":"b%d"`, i))
				}
			}
			s.HumanRename(tab, "still here")
			healthyUntil(`"still here"`)
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			if tt.lost {
				b, err := io.ReadAll(c)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
				last := lines[len(lines)-1]
				if !strings.HasPrefix(last, `{"id":"slow","error":{"code":"events_lost"`) || len(lines) > 1+40+1 {
					t.Fatalf("%d lines, last %.120s", len(lines), last)
				}
				if s.EventsLost() != 1 {
					t.Fatalf("EventsLost %d", s.EventsLost())
				}
			} else {
				// the stream stays open, skips what the ring evicted and
				// goes on with what is left: the first phase-2 title
				// seen is a later one than b0
				r := bufio.NewReader(c)
				for {
					l, err := r.ReadString('\n')
					if err != nil {
						t.Fatalf("stream ended: %v", err)
					}
					if strings.Contains(l, `"events_lost"`) {
						t.Fatalf("events_lost on %d: %.120s", tt.protocol, l)
					}
					var ev struct {
						Data struct {
							Pane struct {
								TerminalTitle string `json:"terminal_title"`
							}
						}
					}
					mustJSON(t, l, &ev)
					if title := ev.Data.Pane.TerminalTitle; strings.HasPrefix(title, "b") {
						if title == "b0" {
							t.Fatal("nothing was skipped: the ring evicted b0 before the stream got to it")
						}
						break
					}
				}
			}
			if r := result(t, call(t, s, "ping", map[string]any{})); r["type"] != "pong" {
				t.Fatalf("ping %v", r)
			}
		})
	}
}

// On 22 a pane exit that empties its tab (and workspace) announces them.
func TestClosedEventsOnPaneExit(t *testing.T) {
	for _, tt := range []struct {
		protocol int
		split    bool // the tab keeps a pane
		want     []string
	}{
		{20, false, []string{"pane_exited"}},
		{20, true, []string{"pane_exited"}},
		{22, false, []string{"pane_exited", "tab_closed", "workspace_closed"}},
		{22, true, []string{"pane_exited"}},
	} {
		t.Run(fmt.Sprintf("%d/split=%v", tt.protocol, tt.split), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(tt.protocol))
			_, _, p := s.NewWorkspace("gone", "/tmp")
			if tt.split {
				s.Split(p, "/tmp")
			}
			_, other, _ := s.NewWorkspace("stays", "/tmp")
			st := subscribe(t, s, map[string]any{"type": "pane.exited"}, map[string]any{"type": "tab.closed"},
				map[string]any{"type": "workspace.closed"}, map[string]any{"type": "tab.renamed"})
			st.next(t)
			release := s.HoldEvents() // one round for all of them on 22
			s.ExitPane(p)
			s.HumanRename(other, "marker")
			release()
			if got := eventKindsUntil(t, st, "tab_renamed"); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("events %v, want %v", got, tt.want)
			}
		})
	}
}

// herdr's read poll is on by default: a request line that is not there
// when the connection is first looked at is read only at the next 100 ms
// poll. The lower bound below holds on any machine: the sim slept that long.
func TestReadPoll(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []herdrsim.Option
		on   bool
	}{
		{"default", nil, true},
		{"WithoutReadPoll", []herdrsim.Option{herdrsim.WithoutReadPoll()}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, append([]herdrsim.Option{schemaOpt(t)}, tt.opts...)...)
			if s.ReadPollOn() != tt.on {
				t.Fatalf("ReadPollOn %v", s.ReadPollOn())
			}
			dialed := time.Now()
			c, err := net.Dial("unix", s.SocketPath())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The request goes out only once the server has looked and
			// found nothing: with the poll on it then sleeps, with it off
			// it blocks in read and must answer at once.
			testutil.WaitFor(t, "the first empty look", func() bool { return s.EmptyLooks() >= 1 })
			if tt.on {
				testutil.WaitFor(t, "the first read poll", func() bool { return s.ReadPolls() >= 1 })
			}
			io.WriteString(c, `{"id":"late","method":"ping","params":{}}`+"\n")
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			b, err := io.ReadAll(c)
			answered := time.Since(dialed)
			if err != nil || !strings.HasPrefix(string(b), `{"id":"late","result":{"type":"pong"`) {
				t.Fatalf("got %q, %v", b, err)
			}
			polls := s.ReadPolls()
			if !tt.on {
				if polls != 0 {
					t.Fatalf("%d read polls with the poll off", polls)
				}
				return
			}
			if polls < 1 || answered < time.Duration(polls)*herdrsim.ReadPollInterval {
				t.Fatalf("answered after %v with %d polls of %v", answered, polls, herdrsim.ReadPollInterval)
			}
		})
	}
}

// A request split over two writes costs a poll between them as well.
func TestReadPollPartialLine(t *testing.T) {
	s := Start(t, schemaOpt(t))
	c, err := net.Dial("unix", s.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, `{"id":"half","method":`)
	testutil.WaitFor(t, "a look that found half a line", func() bool { return s.ReadPolls() >= 1 })
	before := s.ReadPolls()
	io.WriteString(c, `"ping","params":{}}`+"\n")
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if b, err := io.ReadAll(c); err != nil || !strings.HasPrefix(string(b), `{"id":"half","result":{"type":"pong"`) {
		t.Fatalf("got %q, %v", b, err)
	}
	if s.ReadPolls() < before {
		t.Fatal("counter went back")
	}
}
