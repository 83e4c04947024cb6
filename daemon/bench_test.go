package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// BenchmarkPass100 and BenchmarkPass2000 measure an idle pass (nothing to
// rename, every program cached) over a session of that many panes. ns/op
// includes the fake server encoding the snapshot in the same process, so
// it is an upper bound on the daemon's own cost.
func BenchmarkPass100(b *testing.B)  { benchmarkPass(b, 100) }
func BenchmarkPass2000(b *testing.B) { benchmarkPass(b, 2000) }

// mapInspector answers ForegroundPGID from a table read once from the
// fake server: a constant-time stand-in for a /proc read.
// (fakeInspector scans the whole fake session per call, which would make
// the benchmark measure herdrtest instead of the daemon.)
type mapInspector map[int]int

func (m mapInspector) ForegroundPGID(pid int) (int, error) {
	if pg, ok := m[pid]; ok {
		return pg, nil
	}
	return 0, os.ErrNotExist
}
func (mapInspector) Process(int) (procinfo.Proc, error) { return procinfo.Proc{}, os.ErrNotExist }
func (mapInspector) Children(int) ([]int, error)        { return nil, os.ErrNotExist }

func (m mapInspector) ReadFront(pid int) (procinfo.Front, error) {
	pg, err := m.ForegroundPGID(pid)
	return procinfo.Front{ShellPID: pid, PGID: pg, Leader: procinfo.FrontProc{PID: pg}}, err
}
func (m mapInspector) ProveLocal(_, shell int) (bool, string) { _, ok := m[shell]; return ok, "" }

// benchSession fills srv with panes panes: workspaces of 10 tabs, two
// panes a tab, every other tab running a program.
func benchSession(srv *herdrsim.Server, panes int) []string {
	var ids []string
	var ws string
	for i := 0; len(ids) < panes; i++ {
		dir := fmt.Sprintf("%s/projects/p%d", home, i)
		var pane string
		if i%10 == 0 {
			ws, _, pane = srv.NewWorkspace(fmt.Sprintf("ws%d", i/10), dir)
		} else {
			_, pane = srv.NewTab(ws, dir)
		}
		ids = append(ids, pane)
		if i%2 == 0 {
			srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"nvim", "main.go"}})
		}
		if len(ids) < panes {
			ids = append(ids, srv.Split(pane, dir))
		}
	}
	return ids
}

func benchmarkPass(b *testing.B, panes int, mods ...func(*Options)) {
	srv := herdrtest.Start(b, herdrsim.WithoutSchemas())
	ids := benchSession(srv, panes)
	ctx := context.Background()
	client := herdr.New(srv.SocketPath())
	insp := mapInspector{}
	for _, id := range ids {
		pi, err := client.ProcessInfo(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		insp[pi.ShellPID] = pi.ForegroundPGID
	}
	nm, err := namer.New(namer.Config{Format: "{proc|dir}", MaxLen: 24, Home: home})
	if err != nil {
		b.Fatal(err)
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{
		Socket: srv.SocketPath(), Naming: pass.Config{Namer: nm, Procs: procs, Inspector: insp, Apply: true},
		StatePath: b.TempDir() + "/state.json", Timeout: 10 * time.Second,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	for _, mod := range mods {
		mod(&opt)
	}
	d, err := New(opt)
	if err != nil {
		b.Fatal(err)
	}
	// The first pass names every tab and fills the program cache.
	if _, err := d.Once(ctx); err != nil {
		b.Fatal(err)
	}
	srv.ResetCounters()
	b.ReportAllocs()
	b.ResetTimer()
	procCalls := 0
	for b.Loop() {
		st, err := d.PassStats(ctx)
		if err != nil {
			b.Fatal(err)
		}
		procCalls += st.ProcessInfoCalls
		if st.Renames != 0 {
			b.Fatalf("idle pass renamed %d tabs", st.Renames)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(srv.Connections())/n, "connections/op")
	b.ReportMetric(float64(srv.Calls("pane.process_info"))/n, "process_info/op")
	if procCalls != srv.Calls("pane.process_info") {
		b.Fatalf("daemon counted %d process_info calls, server saw %d", procCalls, srv.Calls("pane.process_info"))
	}
}
