package herdr

import (
	"encoding/json"
	"fmt"
	"testing"

	fastjson "github.com/goccy/go-json"
)

// realisticSnapshotLine is a session.snapshot reply with n panes (5 per
// tab, 4 tabs per workspace) carrying every field herdr 0.9 puts in a
// SessionSnapshot, including the layouts and agents this client skips:
// a decoder pays for skipping them too. Half the panes run an agent.
func realisticSnapshotLine(tb testing.TB, n int) []byte {
	tb.Helper()
	const panesPerTab, tabsPerWS = 5, 4
	var workspaces, tabs, panes, layouts, agents []map[string]any
	for p := 0; p < n; {
		w := len(workspaces) + 1
		wsID := "w" + EncodeNumber(w)
		workspaces = append(workspaces, map[string]any{
			"workspace_id": wsID, "number": w, "label": fmt.Sprintf("project-%d", w), "focused": w == 1,
			"pane_count": panesPerTab * tabsPerWS, "tab_count": tabsPerWS, "active_tab_id": wsID + ":t1", "agent_status": "working",
			"tokens":   map[string]string{"branch": "main", "ci": "passing"},
			"worktree": map[string]any{"path": "/home/user/src/project-" + fmt.Sprint(w), "branch": "main", "primary": true},
		})
		for tn := 1; tn <= tabsPerWS && p < n; tn++ {
			tabID := wsID + ":t" + EncodeNumber(tn)
			tabs = append(tabs, map[string]any{"tab_id": tabID, "workspace_id": wsID, "number": tn, "label": fmt.Sprint(tn),
				"focused": tn == 1, "pane_count": panesPerTab, "agent_status": "idle"})
			var leaves []map[string]any
			for k := 1; k <= panesPerTab && p < n; k++ {
				p++
				paneID := wsID + ":p" + EncodeNumber((tn-1)*panesPerTab+k)
				term := fmt.Sprintf("term_%x", 0x65bad9eb530000+p)
				pane := map[string]any{
					"pane_id": paneID, "terminal_id": term, "workspace_id": wsID, "tab_id": tabID, "focused": k == 1,
					"cwd": "/home/user/src/project/" + wsID, "foreground_cwd": "/home/user/src/project/" + wsID + "/internal/server",
					"terminal_title": "✳ Fixing the flaky integration test", "terminal_title_stripped": "Fixing the flaky integration test",
					"agent_status": "unknown", "scroll": map[string]int{"offset_from_bottom": 0, "max_offset_from_bottom": 2400, "viewport_rows": 48},
					"revision": 10415 + p,
				}
				if p%2 == 0 {
					pane["agent"], pane["agent_status"], pane["display_agent"], pane["title"] = "claude", "working", "Claude", "refactor parser"
					pane["state_labels"] = map[string]string{"working": "thinking", "idle": "ready"}
					pane["tokens"] = map[string]string{"title_working": "⠋", "model": "opus", "cost": "$0.42"}
					pane["agent_session"] = map[string]string{"id": "0f9d3c2a-77b1-4c1e-9a51-1d2f4e8b6c70", "path": "/home/user/.claude/projects/x/0f9d.jsonl"}
					agents = append(agents, map[string]any{
						"terminal_id": term, "name": "claude-" + fmt.Sprint(p), "agent": "claude", "title": "refactor parser",
						"terminal_title": "✳ Fixing the flaky integration test", "terminal_title_stripped": "Fixing the flaky integration test",
						"display_agent": "Claude", "agent_status": "working", "state_labels": pane["state_labels"], "tokens": pane["tokens"],
						"workspace_id": wsID, "tab_id": tabID, "pane_id": paneID, "focused": k == 1, "interactive_ready": true,
						"state_change_seq": 31 + p, "cwd": pane["cwd"], "foreground_cwd": pane["foreground_cwd"], "revision": pane["revision"],
					})
				} else {
					pane["label"] = "shell"
				}
				panes = append(panes, pane)
				leaves = append(leaves, map[string]any{"type": "pane", "pane_id": paneID})
			}
			layouts = append(layouts, map[string]any{"tab_id": tabID, "workspace_id": wsID, "zoomed": false,
				"root": map[string]any{"type": "split", "direction": "vertical", "ratio": 0.5, "children": leaves}})
		}
	}
	snap := map[string]any{"version": "0.9.3", "protocol": 22, "focused_workspace_id": "w1", "focused_tab_id": "w1:t1", "focused_pane_id": "w1:p1",
		"workspaces": workspaces, "tabs": tabs, "panes": panes, "layouts": layouts, "agents": agents}
	line, err := json.Marshal(map[string]any{"id": "htr-1", "result": map[string]any{"type": "session_snapshot", "snapshot": snap}})
	if err != nil {
		tb.Fatal(err)
	}
	return line
}

// BenchmarkSnapshotDecodeLibraries answers the question: does
// goccy/go-json earn its place at the sessions people have (<= 200 panes)?
// Same reply, same target type, both libraries.
//
// Figures on the shared 2-core dev machine, 2026-12-03 (go test -run '^$'
// -bench SnapshotDecodeLibraries -benchmem -count 3; median of 3):
//
//	panes  reply     library        ns/op       B/op  allocs/op
//	   50   51 KB    encoding/json   1,383,505     71,848      1,177
//	   50            goccy/go-json     267,716     67,192        978
//	  200  202 KB    encoding/json   3,556,119    286,360      4,589
//	  200            goccy/go-json     754,914    273,222      3,845
//	 2000  2.0 MB    encoding/json  32,410,375  3,384,874     45,550
//	 2000            goccy/go-json   4,324,311  2,548,696     38,239
//
// goccy is 4.7-5.2x faster at 50 and 200 panes. At 200 panes and the 3 s
// poll, encoding/json alone would spend about 0.12 % of a core on decoding,
// over the daemon's 0.1 % idle budget; goccy spends 0.025 %. At 2,000
// panes only goccy stays inside the 10 ms pass budget. So goccy stays, and
// it is the package's only JSON library (tests build fixtures with
// encoding/json, which keeps the two honest against each other).
func BenchmarkSnapshotDecodeLibraries(b *testing.B) {
	libs := []struct {
		name      string
		unmarshal func([]byte, any) error
	}{
		{"std", json.Unmarshal},
		{"goccy", fastjson.Unmarshal},
	}
	for _, n := range []int{50, 200, 2000} {
		line := realisticSnapshotLine(b, n)
		for _, lib := range libs {
			b.Run(fmt.Sprintf("panes=%d/%s", n, lib.name), func(b *testing.B) {
				b.SetBytes(int64(len(line)))
				b.ReportAllocs()
				for b.Loop() {
					var r reply[snapshotResult]
					if err := lib.unmarshal(line, &r); err != nil || r.Result == nil || len(r.Result.Snapshot.Panes) != n {
						b.Fatalf("decode: %v", err)
					}
				}
			})
		}
	}
}

// TestRealisticSnapshotDecodesAlike guards the benchmark: both libraries
// read the realistic reply into the same Snapshot.
func TestRealisticSnapshotDecodesAlike(t *testing.T) {
	line := realisticSnapshotLine(t, 50)
	var a, b reply[snapshotResult]
	if err := json.Unmarshal(line, &a); err != nil {
		t.Fatal(err)
	}
	if err := fastjson.Unmarshal(line, &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a.Result.Snapshot)
	jb, _ := json.Marshal(b.Result.Snapshot)
	if string(ja) != string(jb) || len(a.Result.Snapshot.Panes) != 50 || a.Result.Snapshot.Panes[1].Agent != "claude" {
		t.Errorf("decoders disagree:\n%s\n%s", ja, jb)
	}
}

// BenchmarkParseBurstEvent is the cost of one pane_updated line of a 0.9
// burst (the live 0.9.0 shape, docs/herdr.md §7): a 640-event burst costs
// 640 times this. Measured 2026-12-03 (median of 3): 2,412 ns/op,
// 624 B/op, 8 allocs/op, so a 640-event burst is about 1.5 ms.
func BenchmarkParseBurstEvent(b *testing.B) {
	line := []byte(paneUpdatedLine(10415))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		ev, err := parseEvent("bench", "bench", line)
		if err != nil || ev.PaneID != "w1X:p1" {
			b.Fatalf("parse: %+v, %v", ev, err)
		}
	}
}
