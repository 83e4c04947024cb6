package session

import (
	"context"

	"path/filepath"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/sqlread"
)

// TestABusyFolderRests: a database committed twenty times a second makes
// its folder rest (looked at twice a second instead of watched); a rename
// meanwhile still signals Changed, and once the commits stop the folder
// is watched again.
func TestABusyFolderRests(t *testing.T) {
	w := newWorld(t)
	s := stores["opencode"]
	p := s.place(w, opencodeAuto)
	db := openWriter(t, p)
	ss := newSessionsIn(t, w.home)
	pane := herdr.Pane{ID: "w1:p1", Agent: "opencode", Cwd: paneDir,
		AgentSession: &herdr.AgentSession{Source: "herdr:opencode", Agent: "opencode", Kind: herdr.SessionKindID, Value: opencodeID}}
	ss.Titles([]herdr.Pane{pane})
	waitQuiet(t, ss)
	drain(ss, 4*sessionCoalesce)
	dir := filepath.Dir(p)
	state := func() (resting, watched bool) {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		_, resting = ss.resting[dir]
		return resting, ss.dirs[dir] > 0
	}

	ctx, stop := context.WithCancel(context.Background())
	committed := make(chan error, 1)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				committed <- nil
				return
			case <-tick.C:
			}
			if _, err := db.Exec("UPDATE session SET time_updated = ? WHERE id = ?", n, opencodeID); err != nil {
				committed <- err
				return
			}
		}
	}()
	defer func() { stop(); <-committed }()
	deadline := time.Now().Add(wakeBound)
	for resting, _ := state(); !resting; resting, _ = state() {
		if time.Now().After(deadline) {
			t.Fatalf("the folder of a database committed 20 times a second does not rest")
		}
		time.Sleep(20 * time.Millisecond)
	}
	drain(ss, 2*sessionCoalesce)
	if _, err := db.Exec(opencodeRename); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		if !waitChanged(ss, wakeBound) {
			t.Fatal("no Changed for a rename while the folder rests")
		}
		if got := ss.Titles([]herdr.Pane{pane}); got[pane.ID] == "auth redirect" {
			break
		}
	}
	t.Logf("a rename while resting: Changed in %v", time.Since(start).Round(time.Millisecond))
	stop()
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	committed <- nil // for the deferred wait
	deadline = time.Now().Add(wakeBound)
	for resting, watched := state(); resting || !watched; resting, watched = state() {
		if time.Now().After(deadline) {
			t.Fatalf("the folder is not watched again once quiet (resting %v, watched %v)", resting, watched)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestADatabaseIsKeptOpenWhileRead: a database whose agent runs is kept
// open after a read, for the next; sqlread.ConnIdle after the last read it is
// closed, and Close closes it at once.
func TestADatabaseIsKeptOpenWhileRead(t *testing.T) {
	w := newWorld(t)
	s := stores["hermes"]
	s.place(w, hermesRename)
	r := w.reader()
	open := r.pool.Open
	if got := r.Title(s.ref()); got != "auth redirect" || open() != 1 {
		t.Fatalf("Title = %q, %d kept open, want 1", got, open())
	}
	deadline := time.Now().Add(sqlread.ConnIdle + wakeBound)
	for open() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still open %v after the last read", sqlread.ConnIdle+wakeBound)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.Title(s.ref())
	clear(r.dbs) // read again, not from what was read
	if got := r.Title(s.ref()); got != "auth redirect" || open() != 1 {
		t.Fatalf("read again: %q, %d kept open", got, open())
	}
	r.Close()
	if n := open(); n != 0 {
		t.Errorf("%d open after Close", n)
	}
	if got := r.Title(s.ref()); got != "auth redirect" || open() != 0 {
		t.Errorf("after Close: %q, %d kept open", got, open())
	}
}
