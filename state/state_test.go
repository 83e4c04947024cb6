package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEditKeepsNothingStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	cli, err := Load(path, "")
	if err != nil {
		t.Fatal(err)
	}
	// The daemon names the tab after the CLI read the (empty) file.
	daemonSide, _ := Load(path, "")
	if err := daemonSide.Update(func(tx *Tx) { tx.Named(TabTarget("w1:t1"), "vim") }); err != nil {
		t.Fatal(err)
	}
	cli.InMemory(func(tx *Tx) { tx.Named(TabTarget("w1:t1"), "stale") })
	if err := cli.Edit(func(tx *Tx) { tx.Lock(TabTarget("w1:t1"), "vim") }); err != nil {
		t.Fatal(err)
	}
	got, _ := Load(path, "")
	if m := got.Tab("w1:t1"); m.Label != "vim" || !m.Locked {
		t.Fatalf("after lock: %+v, want the daemon's label vim, locked", m)
	}
}

// `lock` and `release` run as separate processes: each loads the state,
// then updates it under the file lock. Whatever another writer saved in
// between must survive; a flag a user set must never be lost.
func TestConcurrentLockReleaseLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for _, who := range []string{"a", "b"} {
		wg.Go(func() {
			for i := range n {
				st, _ := Load(path, "sock")
				id := fmt.Sprintf("w1:t%s%d", who, i)
				if err := st.Edit(func(tx *Tx) { tx.Lock(TabTarget(id), "x") }); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st, warn := Load(path, "sock")
	if warn != nil {
		t.Fatal(warn)
	}
	var lost []string
	for _, who := range []string{"a", "b"} {
		for i := range n {
			id := fmt.Sprintf("w1:t%s%d", who, i)
			if !st.Tab(id).Locked {
				lost = append(lost, id)
			}
		}
	}
	if len(lost) > 0 {
		t.Fatalf("%d of %d locks lost by concurrent writers, e.g. %v", len(lost), 2*n, lost[:min(5, len(lost))])
	}
}

// The state's temporary files go beside it (where a killed
// writer's litter is cleaned), never into $TMPDIR.
func TestStateTempFilesStayBesideTheState(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(tmp, past, past); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "state.json")
	st, _ := Load(path, "sock")
	if err := st.Update(func(tx *Tx) { tx.Named(TabTarget("w1:t1"), "a") }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(past) {
		t.Fatalf("$TMPDIR was written to while saving the state (mtime %v, was %v)", fi.ModTime(), past)
	}
	// A killed writer's litter beside the file goes at the next write.
	litter := filepath.Join(filepath.Dir(path), ".state.json123456")
	if err := os.WriteFile(litter, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(*Tx) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(litter); !os.IsNotExist(err) {
		t.Fatalf("temp litter %s survived a write: %v", litter, err)
	}
}

// A target renamed forever keeps at most MaxPending labels, newest last,
// each read as ours for PendingTTL from its own request: a label asked
// for long ago is no longer ours however often the target was renamed
// since.
func TestEachPendingLabelExpiresOnItsOwn(t *testing.T) {
	st, _ := Load("", "")
	tab := TabTarget("w1:t1")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, l := range []string{"alpha", "beta", "gamma"} {
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		st.InMemory(func(tx *Tx) { tx.Pend(tab, Flight{Want: l, Sent: at}) })
	}
	e := st.Tab("w1:t1")
	for _, c := range []struct {
		after time.Duration
		want  []string
	}{
		{29 * time.Second, []string{"alpha", "beta", "gamma"}},
		{31 * time.Second, []string{"beta", "gamma"}},
		{38 * time.Second, []string{"beta", "gamma"}},
		{45 * time.Second, []string{"gamma"}},
		{51 * time.Second, nil},
	} {
		if got := e.Landing(t0.Add(c.after)); !slices.Equal(got, c.want) {
			t.Errorf("%v after the first rename: landing %q, want %q", c.after, got, c.want)
		}
	}
	for i := range 3 * MaxPending {
		st.InMemory(func(tx *Tx) { tx.Pend(tab, Flight{Want: fmt.Sprint(i), Sent: t0}) })
	}
	if p := st.Tab("w1:t1").Pending; len(p) != MaxPending || p[len(p)-1].Label != fmt.Sprint(3*MaxPending-1) {
		t.Fatalf("pending after %d renames: %v", 3*MaxPending, p)
	}
}

// Each pending label's time survives the file, and files older versions
// wrote (one pending string, one time for all) still read.
func TestPendingTimesInTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st, _ := Load(path, "")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := st.Update(func(tx *Tx) {
		tx.Pend(TabTarget("w1:t1"), Flight{Want: "a", Sent: t0})
		tx.Pend(TabTarget("w1:t1"), Flight{Want: "b", Sent: t0.Add(20 * time.Second)})
	}); err != nil {
		t.Fatal(err)
	}
	back, _ := Load(path, "")
	if got := back.Tab("w1:t1").Landing(t0.Add(40 * time.Second)); !slices.Equal(got, []string{"b"}) {
		t.Errorf("after a reload, 40 s on: landing %q, want [b]", got)
	}
	raw, _ := os.ReadFile(path)
	var old struct {
		Tabs map[string]struct {
			Pending      []string   `json:"pending"`
			PendingUntil *time.Time `json:"pending_until"`
		} `json:"tabs"`
	}
	if err := json.Unmarshal(raw, &old); err != nil || len(old.Tabs["w1:t1"].Pending) != 2 || old.Tabs["w1:t1"].PendingUntil == nil {
		t.Errorf("the file's plain pending list, as older versions read it: %+v (%v)", old, err)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"pending":"x"}`, "[x]"},
		{`{"pending":["x","y"]}`, "[x y]"},
		{`{"pending":""}`, "[]"},
	} {
		var e Entry
		if err := json.Unmarshal([]byte(tc.in), &e); err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := fmt.Sprint(labelsOf(e.Pending)); got != tc.want {
			t.Errorf("%s: pending %s, want %s", tc.in, got, tc.want)
		}
	}
}

func labelsOf(ps []Pending) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Label)
	}
	return out
}

// A file that cannot be read as a state is never written over: the
// State is read-only, lock and the daemon's writes are refused with the
// reason, a copy is kept beside it, and once a person fixes or removes
// the file the State reads it anew.
func TestDamagedFileIsNeverOverwritten(t *testing.T) {
	good := `{"version":1,"tabs":{"w1:t1":{"label":"web","locked":true,"locked_label":"mine"}}}`
	for _, c := range []struct {
		name, content string
		newer         bool
	}{
		{"cut short", good[:40], false},
		{"a wrong type", `{"version":1,"tabs":{"w1:t1":{"locked":"yes"}}}`, false},
		{"a newer version", `{"version":7,"tabs":{"w1:t1":{"label":"web","locked":true,"locked_label":"mine"}},"future":{}}`, true},
		{"over 16 MiB", `{"version":1,"tabs":{},"pad":"` + strings.Repeat("x", maxFileSize) + `"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			st, warn := Load(path, "")
			if !IsDamaged(warn) || !IsDamaged(st.Damaged()) {
				t.Fatalf("Load warns %v, damaged %v; want a DamagedError", warn, st.Damaged())
			}
			if c.newer && !st.Tab("w1:t1").Locked {
				t.Errorf("a newer file is read for what it can be: lock lost: %+v", st.Tab("w1:t1"))
			}
			for name, write := range map[string]func(func(*Tx)) error{"Update": st.Update, "Edit": st.Edit} {
				if err := write(func(tx *Tx) { tx.Named(TabTarget("w1:t2"), "x") }); !IsDamaged(err) {
					t.Errorf("%s on a damaged file: %v, want refused", name, err)
				}
			}
			if b, _ := os.ReadFile(path); string(b) != c.content {
				t.Fatalf("the damaged file was written over")
			}
			copies, _ := filepath.Glob(path + damagedSuffix + "*")
			if want := 1; c.newer {
				if len(copies) != 0 {
					t.Errorf("a newer file needs no copy: %v", copies)
				}
			} else if len(copies) != want {
				t.Errorf("copies kept: %v, want %d", copies, want)
			} else if b, _ := os.ReadFile(copies[0]); string(b) != c.content {
				t.Errorf("the copy differs from the damaged file")
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := st.Refresh(); err != nil || st.Damaged() != nil {
				t.Fatalf("after the file's removal: refresh %v, damaged %v", err, st.Damaged())
			}
			if err := st.Update(func(tx *Tx) { tx.Named(TabTarget("w1:t2"), "x") }); err != nil {
				t.Fatalf("a write once the file is gone: %v", err)
			}
		})
	}
}

// A file damaged under a running daemon is not written over either: the
// daemon keeps its memory and writes nothing until the file is fixed.
func TestFileDamagedWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st, _ := Load(path, "")
	if err := st.Update(func(tx *Tx) { tx.Named(TabTarget("w1:t1"), "web") }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"version":1,"tabs":{`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(tx *Tx) { tx.Named(TabTarget("w1:t2"), "api") }); !IsDamaged(err) {
		t.Fatalf("a write over a file damaged meanwhile: %v, want refused", err)
	}
	if st.Tab("w1:t1").Label != "web" {
		t.Errorf("memory lost with the damaged file: %+v", st.Tab("w1:t1"))
	}
	if b, _ := os.ReadFile(path); string(b) != `{"version":1,"tabs":{` {
		t.Fatal("the damaged file was written over")
	}
	fixed := `{"version":1,"tabs":{"w1:t1":{"label":"web","locked":true,"locked_label":"web"}}}`
	if err := os.WriteFile(path, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := st.Refresh(); err != nil || st.Damaged() != nil || !st.Tab("w1:t1").Locked {
		t.Fatalf("after the fix: refresh %v, damaged %v, tab %+v", err, st.Damaged(), st.Tab("w1:t1"))
	}
}

// Only the newest few copies of damaged files are kept.
func TestDamagedCopiesAreBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	for i := range keepCopies + 3 {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("{%d", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
		if _, warn := Load(path, ""); !IsDamaged(warn) {
			t.Fatalf("load %d: %v", i, warn)
		}
	}
	copies, _ := filepath.Glob(path + damagedSuffix + "*")
	if len(copies) != keepCopies {
		t.Fatalf("copies kept: %d (%v), want %d", len(copies), copies, keepCopies)
	}
	if b, _ := os.ReadFile(copies[len(copies)-1]); string(b) != fmt.Sprintf("{%d", keepCopies+2) {
		t.Errorf("the newest copy holds %q", b)
	}
}

// The verbs: a lock keeps its label, a release ends it, a rename we made
// is ours and ends a release, a person's label disowns ours, an answered
// flight is no longer unanswered.
func TestVerbs(t *testing.T) {
	st, _ := Load("", "")
	tab := TabTarget("w1:t1")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st.InMemory(func(tx *Tx) { tx.Release(tab, "1"); tx.Pend(tab, Flight{Want: "web", Seen: "1", Sent: t0}) })
	if e := st.Tab(tab.ID); !e.Released || len(e.Unanswered(t0)) != 1 {
		t.Fatalf("after release and a rename: %+v", e)
	}
	st.InMemory(func(tx *Tx) { tx.Answer(tab, "web", t0); tx.Named(tab, "web") })
	if e := st.Tab(tab.ID); e.Released || e.Label != "web" || len(e.Unanswered(t0)) != 0 || len(e.Flights) != 1 {
		t.Fatalf("after the rename landed: %+v", e)
	}
	st.InMemory(func(tx *Tx) { tx.Settle(tab, "web", t0); tx.Lock(tab, "mine"); tx.Disown(tab) })
	if e := st.Tab(tab.ID); !e.Locked || e.LockedLabel != "mine" || e.Label != "" || len(e.Flights) != 0 {
		t.Fatalf("after lock and a person's label: %+v", e)
	}
	st.InMemory(func(tx *Tx) { tx.Unpend(tab, "web", t0); tx.Forget(tab) })
	if st.Has(tab) {
		t.Fatalf("forgotten, still there: %+v", st.Tab(tab.ID))
	}
	// restore's Undo: what was ours goes, a rename that may still land
	// stays followed.
	st.InMemory(func(tx *Tx) {
		tx.Pend(tab, Flight{Want: "web", Seen: "1", Sent: t0})
		tx.Answer(tab, "web", t0)
		tx.Named(tab, "web")
		tx.Pend(tab, Flight{Want: "api", Seen: "web", Sent: t0.Add(time.Second)})
		tx.Undo(tab, t0)
	})
	if e := st.Tab(tab.ID); e.Label != "" || len(e.Flights) != 1 || e.Flights[0].Want != "api" || !slices.Equal(e.Landing(t0), []string{"api"}) {
		t.Fatalf("after restore's undo: %+v", e)
	}
	st.InMemory(func(tx *Tx) { tx.Answer(tab, "api", t0.Add(time.Second)); tx.Undo(tab, t0) })
	if st.Has(tab) {
		t.Fatalf("undone with nothing on its way, still there: %+v", st.Tab(tab.ID))
	}
	// A label given back (restore's own, unanswered) is no name of ours
	// to recognise if it lands late: nothing of it stays.
	st.InMemory(func(tx *Tx) {
		tx.Follow(tab, Flight{Want: "1", Seen: "web", Sent: t0})
		tx.Undo(tab, t0)
	})
	if st.Has(tab) {
		t.Fatalf("undone with only a label given back on its way, still there: %+v", st.Tab(tab.ID))
	}
}

// A server restarted without its session: only what still shows what is
// remembered of it stays.
func TestRevalidate(t *testing.T) {
	st, _ := Load("", "")
	st.InMemory(func(tx *Tx) {
		tx.Named(TabTarget("w1:t1"), "web")
		tx.Named(TabTarget("w1:t2"), "api")
		tx.Lock(TabTarget("w1:t3"), "notes")
		tx.Named(WorkspaceTarget("w1"), "shop")
		tx.Pend(TabTarget("w1:t1"), Flight{Want: "web2", Seen: "web", Sent: time.Now()})
		tx.Pend(TabTarget("w1:t4"), Flight{Want: "db", Seen: "4", Sent: time.Now()})
		// A label asked for over PendingTTL ago no longer lands: one
		// that shows is a person's choice.
		tx.Named(TabTarget("w1:t5"), "api")
		tx.Pend(TabTarget("w1:t5"), Flight{Want: "old", Seen: "5", Sent: time.Now().Add(-PendingTTL - time.Second)})
	})
	var kept, forgot int
	st.InMemory(func(tx *Tx) {
		kept, forgot = tx.Revalidate(map[Target]string{TabTarget("w1:t1"): "web", TabTarget("w1:t2"): "2",
			TabTarget("w1:t3"): "notes", TabTarget("w1:t4"): "db", TabTarget("w1:t5"): "old", WorkspaceTarget("w1"): "x"}, time.Now(),
			func(_ Kind, a, b string) bool { return a == b })
	})
	if kept != 3 || forgot != 3 || !st.Has(TabTarget("w1:t1")) || !st.Has(TabTarget("w1:t3")) || st.Has(TabTarget("w1:t2")) || st.Has(TabTarget("w1:t5")) {
		t.Fatalf("kept %d forgot %d: %v", kept, forgot, st.IDs(Tab))
	}
	// The server that is gone will land none of our renames; one that
	// landed before it went is ours.
	if e := st.Tab("w1:t1"); len(e.Flights) > 0 || len(e.Pending) > 0 {
		t.Errorf("renames to the server that is gone still followed: %+v", e)
	}
	if e := st.Tab("w1:t4"); e.Label != "db" || len(e.Flights) > 0 {
		t.Errorf("a pending label of ours that shows: %+v", e)
	}
}

// A person's marks live in the file: when a person removes it (to start
// over from a damaged one), a running daemon's memory keeps no lock or
// release of it, only the labels it set.
func TestMarksGoWithTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	daemon, _ := Load(path, "")
	if err := daemon.Update(func(tx *Tx) { tx.Named(TabTarget("w1:t1"), "web"); tx.Release(TabTarget("w1:t2"), "mine") }); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := daemon.Refresh(); err != nil {
		t.Fatal(err)
	}
	if e := daemon.Tab("w1:t2"); e.Released {
		t.Errorf("a release the file no longer holds: %+v", e)
	}
	if e := daemon.Tab("w1:t1"); e.Label != "web" {
		t.Errorf("the label we set was forgotten: %+v", e)
	}
}

// A second writer (lock's put-back, restore) read the file before the
// daemon's last save: its save must not take back what the daemon saved
// of targets it never changed, nor its own unsaved changes be lost.
func TestAStaleWriterKeepsOthersSaves(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	ws, tab := Target{Kind: Workspace, ID: "w1"}, TabTarget("w1:t2")
	at := time.Now()
	daemon, _ := Load(path, "")
	if err := daemon.Update(func(tx *Tx) { tx.Pend(ws, Flight{Want: "ws-alpha", Seen: "alpha", Sent: at}) }); err != nil {
		t.Fatal(err)
	}
	lock, _ := Load(path, "")
	if err := daemon.Update(func(tx *Tx) { tx.Pend(ws, Flight{Want: "ws-beta", Seen: "ws-alpha", Sent: at}) }); err != nil {
		t.Fatal(err)
	}
	// A change that was not saved (a write that failed) is the lock's own.
	lock.InMemory(func(tx *Tx) { tx.Pend(TabTarget("w1:t3"), Flight{Want: "gamma", Sent: at}) })
	if err := lock.Update(func(tx *Tx) { tx.Follow(tab, Flight{Want: "mine", Sent: at}) }); err != nil {
		t.Fatal(err)
	}
	got, _ := Load(path, "")
	if l := got.Entry(ws).Landing(at); !slices.Contains(l, "ws-beta") {
		t.Errorf("the daemon's pending ws-beta was taken back by a stale writer: pending %v", l)
	}
	if l := got.Entry(TabTarget("w1:t3")).Landing(at); !slices.Contains(l, "gamma") {
		t.Errorf("the stale writer's own unsaved change was lost: pending %v", l)
	}
	if len(got.Entry(tab).Flights) != 1 {
		t.Errorf("the stale writer's flight: %+v", got.Entry(tab))
	}
}

// A pane's verbs: the terminal it runs in (Seat), a release that knows
// the label it began on and ends (EndRelease), and a move of everything
// remembered to a new id (Move), kept across the file.
func TestPaneVerbs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	st, _ := Load(path, "/tmp/h.sock")
	old, moved := PaneTarget("w1:p1"), PaneTarget("w2:p4")
	if err := st.Update(func(tx *Tx) { tx.Release(old, ""); tx.Seat(old, "term_1") }); err != nil {
		t.Fatal(err)
	}
	back, _ := Load(path, "/tmp/h.sock")
	if e := back.Entry(old); !e.Released || e.ReleasedFrom == nil || *e.ReleasedFrom != "" || e.Terminal != "term_1" {
		t.Fatalf("after ReleaseShowing and Seat, read back: %+v", e)
	}
	st.InMemory(func(tx *Tx) { tx.Move(old, moved) })
	if st.Has(old) || st.Entry(moved).Terminal != "term_1" || !st.Entry(moved).Released {
		t.Fatalf("after Move: old %v, new %+v", st.Has(old), st.Entry(moved))
	}
	st.InMemory(func(tx *Tx) { tx.Seat(old, "term_2"); tx.Move(old, moved) })
	if !st.Has(old) || st.Entry(moved).Terminal != "term_1" {
		t.Fatal("a move onto a remembered id replaced its memory")
	}
	st.InMemory(func(tx *Tx) { tx.EndRelease(moved) })
	if e := st.Entry(moved); e.Released || e.ReleasedFrom != nil {
		t.Fatalf("after EndRelease: %+v", e)
	}
}
