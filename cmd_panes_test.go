package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// paneLabels lists the labels of srv's panes, in the session's order.
func paneLabels(srv *herdrsim.Server) []string {
	var out []string
	for _, p := range srv.Snapshot().Panes {
		out = append(out, p.Label)
	}
	return out
}

// run is Main with its outputs; it fails the test on an unwanted exit.
func runMain(t *testing.T, code int, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if got := Main(args, &out, &errb); got != code {
		t.Fatalf("%v: exit %d, want %d; stdout %q stderr %q", args, got, code, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// Panes through the commands: once names them and says so, explain
// --pane shows one, lock --pane keeps one's label, and restore clears
// every label of ours, with or without --pane-format, and none of a
// person's or a locked one.
func TestPanesThroughTheCommands(t *testing.T) {
	srv := restoreServer(t)
	_, tab, p1 := srv.NewWorkspace("main", "/tmp/api")
	p2 := srv.Split(p1, "/tmp/web")
	p3 := srv.Split(p2, "/tmp/doc")
	named := []string{"--pane-format", "{dir}"}

	out, _ := runMain(t, 0, append([]string{"once", "--apply"}, named...)...)
	if !strings.Contains(out, `renamed pane `+p2+` "" -> "web"`) {
		t.Fatalf("once said:\n%s", out)
	}
	if got := strings.Join(paneLabels(srv), ","); got != "api,web,doc" {
		t.Fatalf("pane labels %s", got)
	}
	out, _ = runMain(t, 0, append([]string{"explain", "--pane", p2}, named...)...)
	if !strings.HasPrefix(out, "pane "+p2) || !strings.Contains(out, `"web"`) || strings.Count(out, "\npane ") != 0 || strings.Contains(out, "tab "+tab+"\t") {
		t.Fatalf("explain --pane said:\n%s", out)
	}

	// A person names p2; p3 is locked as it shows.
	if _, err := herdr.New(srv.SocketPath()).RenamePane(context.Background(), p2, "mine"); err != nil {
		t.Fatal(err)
	}
	if out, _ = runMain(t, 0, "lock", "--pane", p3); out != "locked pane "+p3+"\n" {
		t.Fatalf("lock --pane said %q", out)
	}
	out, _ = runMain(t, 0, "restore", "--pane", p1)
	if !strings.Contains(out, "would clear pane "+p1+` "api"`) || strings.Contains(out, p2) || strings.Contains(out, "restore "+tab) {
		t.Fatalf("restore --pane dry run said:\n%s", out)
	}
	// Without --pane-format: the memory alone tells our labels.
	out, _ = runMain(t, 0, "restore", "--apply")
	if got := strings.Join(paneLabels(srv), ","); got != ",mine,doc" {
		t.Fatalf("after restore the panes show %s; restore said:\n%s", got, out)
	}
	for _, want := range []string{"cleared  pane " + p1, "left     pane " + p2 + ` "mine": a person's name`, "left     pane " + p3 + ` "doc": locked`} {
		if !strings.Contains(out, want) {
			t.Errorf("restore said no %q:\n%s", want, out)
		}
	}
	if out, _ = runMain(t, 0, "release", "--pane", p3); out != "released pane "+p3+"\n" {
		t.Fatalf("release --pane said %q", out)
	}
}

// Each bad --pane is one line saying what and where.
func TestPaneFlagErrors(t *testing.T) {
	srv := restoreServer(t)
	_, tab, _ := srv.NewWorkspace("main", "/tmp/api")
	for _, tt := range []struct {
		code int
		args []string
		want string
	}{
		{2, []string{"explain", "--pane", "w1:p1"}, "pane names are off"},
		{2, []string{"explain", "--pane", tab, "--pane-format", "{dir}"}, `invalid pane id "` + tab + `"`},
		{2, []string{"explain", tab, "--pane", "w1:p1", "--pane-format", "{dir}"}, "name two things"},
		{1, []string{"explain", "--pane", "w1:p9", "--pane-format", "{dir}"}, "pane w1:p9 not found"},
		{2, []string{"lock", "--pane", "p1"}, `--pane: invalid pane id "p1"`},
		{2, []string{"release", tab, "--pane", "w1:p1"}, "name two things"},
		{1, []string{"lock", "--pane", "w1:p9"}, "has no pane w1:p9"},
		{2, []string{"restore", "--pane", "x"}, `restore --pane: invalid pane id "x"`},
		{1, []string{"restore", "--pane", "w1:p9"}, "has no pane w1:p9"},
	} {
		_, errs := runMain(t, tt.code, tt.args...)
		if !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line with %q", tt.args, errs, tt.want)
		}
	}
}
