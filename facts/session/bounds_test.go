package session

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// allocated is how many bytes of Go heap f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestYAMLReadIsLinear: a workspace.yaml whose name is folded over many
// short lines costs memory in proportion to its size, as a flat one
// does: a reader that joins the lines one by one costs their square.
func TestYAMLReadIsLinear(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
	}{
		{"folded over short lines", "user_named: true\nname: a\n" + strings.Repeat(" b\n", 64<<10/3)},
		{"a quoted value folded", "user_named: true\nname: \"a\n" + strings.Repeat(" \\tb\n", 64<<10/5) + " c\"\n"},
		{"many short keys", strings.Repeat("k: v\n", 64<<10/5) + "name: x\n"},
		{"one long line", "name: " + strings.Repeat("x", 64<<10) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f found
			var err error
			n := allocated(func() { err = decodeCopilot([]byte(tc.yaml), &f) })
			if err != nil {
				t.Fatal(err)
			}
			if bound := uint64(4*len(tc.yaml) + 64<<10); n > bound {
				t.Errorf("%d bytes allocated to read %d bytes, bound %d", n, len(tc.yaml), bound)
			}
			if title, _ := userElseAuto(&f, Ref{}); oneLine(title) == "" {
				t.Errorf("no name read")
			}
		})
	}
}

// TestDatabaseTitleCutWhileRead: a title of 16 MiB in a database costs
// the read no more than its first bytes: it is cut as SQLite reads it,
// not after.
func TestDatabaseTitleCutWhileRead(t *testing.T) {
	for _, name := range []string{"opencode", "hermes"} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			s := stores[name]
			p := filepath.Join(w.home, s.rel)
			db := openWriter(t, p)
			if _, err := db.Exec(string(fixture(t, s.schema))); err != nil {
				t.Fatal(err)
			}
			table := map[string]string{"opencode": "session", "hermes": "sessions"}[name]
			big := "auth redirect " + strings.Repeat("x", 16<<20)
			if _, err := db.Exec("UPDATE "+table+" SET title = ? WHERE id = ?", big, s.id); err != nil {
				t.Fatal(err)
			}
			r := w.reader()
			var got string
			n := allocated(func() { got = r.Title(s.ref()) })
			if !strings.HasPrefix(got, "auth redirect xxx") || len(got) > maxTitle {
				t.Fatalf("Title = %.40q... (%d bytes)", got, len(got))
			}
			if n > 1<<20 {
				t.Errorf("reading a 16 MiB title allocated %d bytes", n)
			}
		})
	}
}

// TestOneDatabaseReadPerBurst: six panes whose sessions are in one
// OpenCode database; the agent of one commits, and the database is read
// once for all six, however many panes read it.
func TestOneDatabaseReadPerBurst(t *testing.T) {
	w := newWorld(t)
	s := stores["opencode"]
	p := filepath.Join(w.home, s.rel)
	db := openWriter(t, p)
	if _, err := db.Exec(string(fixture(t, s.schema))); err != nil {
		t.Fatal(err)
	}
	var panes []herdr.Pane
	for i := range 6 {
		id := fmt.Sprintf("ses_%024d", i)
		if _, err := db.Exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
			VALUES (?, '4f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d', 's', '/home/u/src/api', ?, '1.14.2', 0, 0)`, id, fmt.Sprintf("title %d", i)); err != nil {
			t.Fatal(err)
		}
		panes = append(panes, herdr.Pane{ID: fmt.Sprintf("w1:p%d", i), Agent: "opencode", Cwd: paneDir,
			AgentSession: &herdr.AgentSession{Source: "herdr:opencode", Agent: "opencode", Kind: herdr.SessionKindID, Value: id}})
	}
	ss := newSessionsIn(t, w.home)
	if got := ss.Titles(panes); len(got) != 6 {
		t.Fatalf("Titles = %v", got)
	}
	waitQuiet(t, ss)
	for waitChanged(ss, 4*sessionCoalesce) {
	}
	for round := range 3 {
		before := ss.reader.sqlReads.Load()
		if _, err := db.Exec("UPDATE session SET title = ? WHERE id = ?", fmt.Sprintf("renamed %d", round), "ses_"+fmt.Sprintf("%024d", 0)); err != nil {
			t.Fatal(err)
		}
		if !waitChanged(ss, wakeBound) {
			t.Fatalf("round %d: no Changed after a rename", round)
		}
		got := ss.Titles(panes) // the pass the change wakes
		if got["w1:p0"] != fmt.Sprintf("renamed %d", round) || got["w1:p5"] != "title 5" {
			t.Fatalf("round %d: Titles = %v", round, got)
		}
		if n := ss.reader.sqlReads.Load() - before; n != 1 {
			t.Errorf("round %d: the database was read %d times for one commit and six panes, want once", round, n)
		}
	}
}
