package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

func TestZZProfile(t *testing.T) {
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
		db.Exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, '4f1c2d3e4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d', 's', '/home/u/src/api', ?, '1.14.2', 0, 0)`, id, fmt.Sprintf("title %d", i))
		panes = append(panes, herdr.Pane{ID: fmt.Sprintf("w1:p%d", i), Agent: "opencode", Cwd: paneDir,
			AgentSession: &herdr.AgentSession{Source: "herdr:opencode", Agent: "opencode", Kind: herdr.SessionKindID, Value: id}})
	}
	ss := newSessionsIn(t, w.home)
	ss.Titles(panes)
	f, _ := os.Create("/tmp/zz.prof")
	pprof.StartCPUProfile(f)
	end := time.Now().Add(10 * time.Second)
	reads := ss.reader.sqlReads.Load()
	for n := 0; time.Now().Before(end); n++ {
		db.Exec("UPDATE session SET time_updated = ? WHERE id = 'ses_000000000000000000000000'", n)
		time.Sleep(50 * time.Millisecond)
	}
	pprof.StopCPUProfile()
	f.Close()
	t.Logf("%d db reads", ss.reader.sqlReads.Load()-reads)
}
