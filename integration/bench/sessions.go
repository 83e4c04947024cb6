//go:build unix

package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	// The agent's writer of its database, as OpenCode keeps it.
	_ "github.com/ncruces/go-sqlite3/driver"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// OpenCode panes at work: six panes name their tabs after their OpenCode
// sessions ({session|dir}), all six sessions in one database (as OpenCode
// keeps them), while the agent of one commits commitsPerSecond times a
// second, as an agent streaming an answer does; the titles stay as they
// are. What the daemon costs then is its CPU over spans of sessionSpan.

const (
	sessionPanes     = 6
	commitsPerSecond = 20
)

// sessionSpan is the length of each span of the sessions part, from the
// command line.
var sessionSpan time.Duration

// sessionRows measures the daemon beside six OpenCode panes, one agent
// committing.
func (w *world) sessionRows() ([]row, error) {
	srv, panes, _, err := w.shellServer(plainShells(sessionPanes), noEnv)
	if err != nil {
		return nil, err
	}
	db, ids, err := w.opencodeDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := reportOpencode(srv, panes, ids); err != nil {
		return nil, err
	}
	cmd, err := w.startSessionDaemon(srv, ids)
	if err != nil {
		return nil, err
	}
	defer stopProc(cmd)
	ctx, stop := context.WithCancel(context.Background())
	commitErr := make(chan error, 1)
	go func() { commitErr <- commit(ctx, db, ids[0]) }()
	defer func() { stop(); <-commitErr }()
	time.Sleep(2 * time.Second) // past the first bursts
	var got shares
	for range restSpans {
		before, err := cpuTicks(cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		time.Sleep(sessionSpan)
		after, err := cpuTicks(cmd.Process.Pid)
		if err != nil {
			return nil, err
		}
		got = append(got, share(tickTime(after-before), time.Since(start)))
	}
	renames, err := renamesWhileCommitting(srv, db, ids[0])
	if err != nil {
		return nil, err
	}
	select {
	case err := <-commitErr:
		return nil, fmt.Errorf("the agent's commits: %w", err)
	default:
	}
	fmt.Fprintln(os.Stderr, "bench: sessions done")
	return []row{{fmt.Sprintf("daemon CPU, %d OpenCode panes ({session}), one agent committing %d times a second (spans of %v)",
		sessionPanes, commitsPerSecond, sessionSpan), got.format(2), "at most 0.5 % of a core"},
		{"a rename of that session meanwhile, to its tab", pcts(renames), "within a second"}}, nil
}

// renamesWhileCommitting renames session id samples times while its
// agent commits, and returns how long each took to reach the tab (the
// first pane's).
func renamesWhileCommitting(srv *herdrsim.Server, db *sql.DB, id string) ([]time.Duration, error) {
	tab := srv.Snapshot().Tabs[0].ID
	var out []time.Duration
	for i := range samples {
		want := fmt.Sprintf("renamed %d", i)
		start := time.Now()
		if _, err := db.Exec("UPDATE session SET title = ? WHERE id = ?", want, id); err != nil {
			return nil, err
		}
		ok := testutil.Poll(10*time.Second, func() bool {
			for _, t := range srv.Snapshot().Tabs {
				if t.ID == tab {
					return t.Label == want
				}
			}
			return false
		})
		if !ok {
			return nil, fmt.Errorf("a rename while the agent commits did not reach the tab within 10 s")
		}
		out = append(out, time.Since(start))
		time.Sleep(500 * time.Millisecond)
	}
	return out, nil
}

// opencodeDB makes OpenCode's database in the daemon's home, in WAL mode,
// holding a session for each pane, and returns its writer and the ids.
func (w *world) opencodeDB() (*sql.DB, []string, error) {
	p := filepath.Join(w.dir, "home", ".local", "share", "opencode", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, nil, err
	}
	u := url.URL{Path: p}
	db, err := sql.Open("sqlite3", "file:"+u.EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE session (id text PRIMARY KEY, title text NOT NULL, directory text NOT NULL, time_updated integer NOT NULL)"); err != nil {
		db.Close()
		return nil, nil, err
	}
	var ids []string
	for i := range sessionPanes {
		id := fmt.Sprintf("ses_%024d", i)
		if _, err := db.Exec("INSERT INTO session VALUES (?, ?, ?, 0)", id, fmt.Sprintf("session %d", i), w.dir); err != nil {
			db.Close()
			return nil, nil, err
		}
		ids = append(ids, id)
	}
	return db, ids, nil
}

// reportOpencode reports each pane's agent, OpenCode, working in its
// session, as herdr's OpenCode plugin does (pane.report_agent carrying the
// session: herdr keeps OpenCode's session only from a report of its
// state).
func reportOpencode(srv *herdrsim.Server, panes, ids []string) error {
	client := herdr.New(srv.SocketPath(), herdr.WithTimeout(10*time.Second))
	for i, pane := range panes {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := client.Call(ctx, "pane.report_agent", map[string]any{"pane_id": pane, "source": "herdr:opencode",
			"agent": "opencode", "state": "working", "seq": 1, "agent_session_id": ids[i]}, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("pane.report_agent: %w", err)
		}
	}
	return nil
}

// startSessionDaemon runs `herdrtabrenamer run --apply` naming tabs after
// their sessions, and waits until every tab carries its session's title.
func (w *world) startSessionDaemon(srv *herdrsim.Server, ids []string) (*exec.Cmd, error) {
	cmd, err := w.spawnDaemon(srv, "sessions.json", os.Stderr, "--log-level", "warn", "--format", "{session|dir}")
	if err != nil {
		return nil, err
	}
	want := make([]string, len(ids))
	for i := range ids {
		want[i] = fmt.Sprintf("session %d", i)
	}
	ok := testutil.Poll(15*time.Second, func() bool {
		var got []string
		for _, t := range srv.Snapshot().Tabs {
			got = append(got, t.Label)
		}
		return slices.Equal(got, want)
	})
	if !ok {
		stopProc(cmd)
		snap := srv.Snapshot()
		var got []string
		for _, t := range snap.Tabs {
			got = append(got, t.Label)
		}
		for _, p := range snap.Panes {
			got = append(got, fmt.Sprintf("%s %s %+v", p.ID, p.Agent, p.AgentSession))
		}
		return nil, fmt.Errorf("the daemon did not name the tabs after their sessions within 15 s: %q", got)
	}
	return cmd, nil
}

// commit updates session id commitsPerSecond times a second until ctx
// ends, its title unchanged.
func commit(ctx context.Context, db *sql.DB, id string) error {
	tick := time.NewTicker(time.Second / commitsPerSecond)
	defer tick.Stop()
	for n := 1; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if _, err := db.Exec("UPDATE session SET time_updated = ? WHERE id = ?", n, id); err != nil {
			return err
		}
	}
}
