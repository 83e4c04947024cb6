package herdrtest

import (
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

func labels(t *testing.T, s *herdrsim.Server, ws string) []string {
	t.Helper()
	var out []string
	for _, tb := range result(t, call(t, s, "tab.list", map[string]any{"workspace_id": ws}))["tabs"].([]any) {
		m := tb.(map[string]any)
		out = append(out, m["tab_id"].(string)+"="+m["label"].(string))
	}
	return out
}

func TestPositionalLabels(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20)) // the rename event below is replayed
	ws, t1, _ := s.NewWorkspace("w", "/tmp")
	t2, _ := s.NewTab(ws, "/tmp")
	t3, _ := s.NewTab(ws, "/tmp")
	steps := []struct {
		do   func()
		want []string
	}{
		{func() {}, []string{"w1:t1=1", "w1:t2=2", "w1:t3=3"}},
		{func() { s.CloseTab(t1) }, []string{"w1:t2=1", "w1:t3=2"}},
		{func() { s.NewTab(ws, "/tmp") }, []string{"w1:t2=1", "w1:t3=2", "w1:t4=3"}},
		{func() { s.MoveTab(t3, 0) }, []string{"w1:t3=1", "w1:t2=2", "w1:t4=3"}},
		{func() { call(t, s, "tab.rename", map[string]any{"tab_id": t2, "label": ""}) }, []string{"w1:t3=1", "w1:t2=", "w1:t4=3"}},
		{func() { call(t, s, "tab.move", map[string]any{"tab_id": t2, "insert_index": 3}) }, []string{"w1:t3=1", "w1:t4=2", "w1:t2="}},
	}
	for i, st := range steps {
		st.do()
		if got := labels(t, s, ws); !reflect.DeepEqual(got, st.want) {
			t.Fatalf("step %d: labels %v, want %v", i, got, st.want)
		}
	}
	// positional ids, and renumbering emitted no tab.renamed beyond the API rename
	if r := result(t, call(t, s, "tab.get", map[string]any{"tab_id": "w1:2"})); r["tab"].(map[string]any)["tab_id"] != "w1:t4" {
		t.Fatalf("w1:2 resolved to %v", r)
	}
	st := subscribe(t, s, map[string]any{"type": "tab.renamed"})
	st.next(t) // ack
	if l := st.next(t); l != `{"data":{"label":"","tab_id":"w1:t2","type":"tab_renamed","workspace_id":"w1"},"event":"tab_renamed"}` {
		t.Fatalf("rename event %q", l)
	}
	// A rename of our own after the one expected: nothing may come first.
	s.HumanRename(t3, "fence")
	if extra := st.before(t, mark(`"label":"fence"`)); len(extra) > 0 {
		t.Fatalf("extra tab_renamed %q", extra)
	}
}

func TestRenameAlwaysEmitsAndErrors(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20)) // the rename events below are replayed
	_, tab, _ := s.NewWorkspace("w", "/tmp")
	for range 2 {
		r := result(t, call(t, s, "tab.rename", map[string]any{"tab_id": tab, "label": " x\n"}))
		if r["type"] != "tab_info" || r["tab"].(map[string]any)["label"] != " x\n" {
			t.Fatalf("rename result %v", r)
		}
	}
	if n := len(s.Renames()); n != 2 {
		t.Fatalf("%d renames recorded", n)
	}
	s.HumanRename(tab, "  typed  ")
	s.HumanRename(tab, "   ")
	st := subscribe(t, s, map[string]any{"type": "tab.renamed"})
	st.next(t)
	for _, want := range []string{" x\n", " x\n", "typed"} {
		var ev struct{ Data struct{ Label string } }
		mustJSON(t, st.next(t), &ev)
		if ev.Data.Label != want {
			t.Fatalf("label %q, want %q", ev.Data.Label, want)
		}
	}
	code, msg := errCode(t, call(t, s, "tab.rename", map[string]any{"tab_id": "w1:t9", "label": "a"}))
	if code != "tab_not_found" || msg != "tab w1:t9 not found" {
		t.Fatalf("got %s %q", code, msg)
	}
	code, msg = errCode(t, call(t, s, "tab.list", map[string]any{"workspace_id": "w7"}))
	if code != "workspace_not_found" || msg != "workspace w7 not found" {
		t.Fatalf("got %s %q", code, msg)
	}
	code, _ = errCode(t, call(t, s, "tab.move", map[string]any{"tab_id": tab, "insert_index": 5}))
	if code != "tab_move_failed" {
		t.Fatalf("got %s", code)
	}
}

func revision(t *testing.T, s *herdrsim.Server, pane string) float64 {
	t.Helper()
	return result(t, call(t, s, "pane.get", map[string]any{"pane_id": pane}))["pane"].(map[string]any)["revision"].(float64)
}

func TestRevision(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	steps := []struct {
		name string
		do   func()
		want float64
	}{
		{"start", func() {}, 0},
		{"title", func() { s.SetTitle(p, "vim") }, 1},
		{"same stripped title", func() { s.SetTitle(p, "⠋ vim") }, 1},
		{"foreground", func() { s.SetForeground(p, herdrsim.Proc{PID: 7, Argv: []string{"vim"}}) }, 1},
		{"cwd", func() { s.SetCwd(p, "/var") }, 1},
		{"agent", func() { s.SetAgent(p, "claude", herdr.StatusWorking) }, 1},
		{"token", func() { s.SetTokens(p, map[string]string{"k": "v"}) }, 2},
		{"same token", func() { s.SetTokens(p, map[string]string{"k": "v"}) }, 2},
		{"api token", func() {
			call(t, s, "pane.report_metadata", map[string]any{"pane_id": p, "source": "t", "tokens": map[string]any{"k": nil}})
		}, 3},
		{"api presentation", func() {
			call(t, s, "pane.report_metadata", map[string]any{"pane_id": p, "source": "t", "title": "T"})
		}, 3},
		{"clear title", func() { s.SetTitle(p, "") }, 4},
	}
	for _, st := range steps {
		st.do()
		if got := revision(t, s, p); got != st.want {
			t.Fatalf("%s: revision %v, want %v", st.name, got, st.want)
		}
	}
}

func TestReportMetadataValidation(t *testing.T) {
	// Some of these requests break the schema's own limits (key pattern,
	// maxProperties, ttl minimum), which herdr's serde does not enforce:
	// the server answers with herdr's code and also reports the request.
	rec := &recordingTB{TB: t}
	s := Start(rec, schemaOpt(t))
	_, _, p := s.NewWorkspace("w", "/tmp")
	many := map[string]any{}
	for i := range 17 {
		many["k"+strings.Repeat("x", i)] = "v"
	}
	for _, tt := range []struct {
		params map[string]any
		code   string
	}{
		{map[string]any{"pane_id": p, "source": "bad source", "title": "x"}, "invalid_metadata_source"},
		{map[string]any{"pane_id": p, "source": "s", "tokens": map[string]any{"bad key": "v"}}, "invalid_metadata_token"},
		{map[string]any{"pane_id": p, "source": "s", "tokens": many}, "invalid_metadata_token"},
		{map[string]any{"pane_id": p, "source": "s", "tokens": map[string]any{}}, "invalid_metadata_request"},
		{map[string]any{"pane_id": p, "source": "s", "title": "x", "ttl_ms": 0}, "invalid_metadata_ttl"},
		{map[string]any{"pane_id": p, "source": "s"}, "invalid_metadata_request"},
		{map[string]any{"pane_id": p, "source": "s", "title": "x", "clear_title": true}, "invalid_metadata_request"},
		{map[string]any{"pane_id": p, "source": "s", "state_labels": map[string]any{"sleepy": "z"}}, "invalid_state_label"},
		{map[string]any{"pane_id": "w1:p9", "source": "s", "title": "x"}, "pane_not_found"},
	} {
		m := call(t, s, "pane.report_metadata", tt.params)
		if e, ok := m["error"].(map[string]any); !ok || e["code"] != tt.code {
			t.Errorf("%v: got %v, want %s", tt.params, m, tt.code)
		}
	}
	if s.SchemasLoaded() {
		if errs := rec.errors(); len(errs) != 3 || !strings.Contains(errs[0], "request line violates the schema") {
			t.Errorf("want 3 request violations, got %d: %.200q", len(errs), errs)
		}
	}
}

// foreground_cwd when the group leader sits where the shell does: up to 20
// another member's cwd wins; 0.9 follows the leader (docs/herdr.md §9).
func TestProcessInfoAndCwd(t *testing.T) {
	for _, tt := range []struct {
		protocol int
		fgCwd    string
	}{{17, "/home/u/repo"}, {19, "/home/u/repo"}, {20, "/home/u/repo"}, {22, "/home/u"}} {
		t.Run(fmt.Sprint(tt.protocol), func(t *testing.T) { testProcessInfoAndCwd(t, tt.protocol, tt.fgCwd) })
	}
}

func testProcessInfoAndCwd(t *testing.T, protocol int, fgCwd string) {
	s := start(t, herdrsim.WithProtocol(protocol))
	_, _, p := s.NewWorkspace("w", "/home/u")
	s.SetShellPID(p, 100)
	pi := func() map[string]any {
		return result(t, call(t, s, "pane.process_info", map[string]any{"pane_id": p}))["process_info"].(map[string]any)
	}
	pane := func() map[string]any {
		return result(t, call(t, s, "pane.get", map[string]any{"pane_id": p}))["pane"].(map[string]any)
	}
	idle := pi()
	if idle["shell_pid"] != 100.0 || idle["foreground_process_group_id"] != 100.0 {
		t.Fatalf("idle prompt: %v", idle)
	}
	if pn := pane(); pn["cwd"] != "/home/u" || pn["foreground_cwd"] != "/home/u" {
		t.Fatalf("idle cwds: %v", pn)
	}
	s.SetForeground(p,
		herdrsim.Proc{PID: 300, Argv: []string{"node", "", "/usr/local/bin/claude"}, Cwd: "/home/u"},
		herdrsim.Proc{PID: 250, Argv: []string{"/usr/bin/a-very-long-program-name"}, Cwd: "/home/u/repo"})
	got := pi()
	want := map[string]any{"pane_id": p, "shell_pid": 100.0, "foreground_process_group_id": 300.0,
		"foreground_processes": []any{
			map[string]any{"pid": 250.0, "name": "a-very-long-pro", "argv": []any{"/usr/bin/a-very-long-program-name"}, "cmdline": "/usr/bin/a-very-long-program-name", "cwd": "/home/u/repo"},
			map[string]any{"pid": 300.0, "name": "node", "argv": []any{"node", "/usr/local/bin/claude"}, "cmdline": "node /usr/local/bin/claude", "cwd": "/home/u"},
		}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("process_info\n got %v\nwant %v", got, want)
	}
	if pn := pane(); pn["foreground_cwd"] != fgCwd || pn["cwd"] != "/home/u" {
		t.Fatalf("cwds: %v", pn)
	}
	s.ReportOSC7(p, "/osc")
	s.SetCwd(p, "/elsewhere")
	if pn := pane(); pn["cwd"] != "/osc" {
		t.Fatalf("OSC 7 not sticky: %v", pn)
	}
	code, msg := errCode(t, call(t, s, "pane.process_info", map[string]any{"pane_id": "w1:p7"}))
	if code != "pane_not_found" || msg != "pane w1:p7 not found" {
		t.Fatalf("got %s %q", code, msg)
	}
}

// A real interactive shell on a pty runs sleep in its own foreground group.
func TestAttachProcessReal(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	cmd := exec.Command("sh", "-i")
	cmd.Dir = "/tmp"
	cmd.Env = append(os.Environ(), "PS1=$ ")
	f, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		f.Close()
		cmd.Wait()
	})
	go func() { // drain the terminal so the shell never blocks on output
		b := make([]byte, 4096)
		for {
			if _, err := f.Read(b); err != nil {
				return
			}
		}
	}()
	s.AttachProcess(p, cmd.Process.Pid)
	if _, err := f.WriteString("sleep 30\n"); err != nil {
		t.Fatal(err)
	}
	var last map[string]any
	testutil.WaitFor(t, "sleep in the foreground", func() bool {
		last = result(t, call(t, s, "pane.process_info", map[string]any{"pane_id": p}))["process_info"].(map[string]any)
		procs, _ := last["foreground_processes"].([]any)
		return len(procs) == 1 && procs[0].(map[string]any)["name"] == "sleep"
	})
	proc := last["foreground_processes"].([]any)[0].(map[string]any)
	if last["shell_pid"] != float64(cmd.Process.Pid) || proc["cmdline"] != "sleep 30" || proc["cwd"] != "/tmp" ||
		last["foreground_process_group_id"] != proc["pid"] {
		t.Fatalf("process_info %v", last)
	}
	if pn := result(t, call(t, s, "pane.get", map[string]any{"pane_id": p}))["pane"].(map[string]any); pn["foreground_cwd"] != "/tmp" {
		t.Fatalf("foreground_cwd %v", pn)
	}
}

// TestReportMetadataTokens: token values as herdr 0.8.2 stores them
// (trimmed, control characters dropped, 80 characters, trimmed again;
// empty or null clears) and the revision bumped only by a change.
func TestReportMetadataTokens(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	tokens := func() map[string]any {
		pn := result(t, call(t, s, "pane.get", map[string]any{"pane_id": p}))["pane"].(map[string]any)
		m, _ := pn["tokens"].(map[string]any)
		return m
	}
	long := " \x01 " + strings.Repeat("x", 80)
	for _, tt := range []struct {
		name   string
		tokens map[string]any
		want   map[string]any
		rev    float64
	}{
		{"set", map[string]any{"a": " main\t", "b": "x"}, map[string]any{"a": "main", "b": "x"}, 1},
		{"same again", map[string]any{"a": "main"}, map[string]any{"a": "main", "b": "x"}, 1},
		{"blank after the control character counts", map[string]any{"a": long}, map[string]any{"a": strings.Repeat("x", 79), "b": "x"}, 2},
		{"empty clears", map[string]any{"a": " \x02 "}, map[string]any{"b": "x"}, 3},
		{"null clears", map[string]any{"b": nil}, nil, 4},
		{"null of none", map[string]any{"b": nil}, nil, 4},
	} {
		call(t, s, "pane.report_metadata", map[string]any{"pane_id": p, "source": "s", "tokens": tt.tokens})
		if got := tokens(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: tokens %v, want %v", tt.name, got, tt.want)
		}
		if got := revision(t, s, p); got != tt.rev {
			t.Errorf("%s: revision %v, want %v", tt.name, got, tt.rev)
		}
	}
}
