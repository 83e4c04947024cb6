//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
)

// A chatty pane on a real herdr 0.8.2 (the realchatty part). herdr 0.8
// writes at most one event per subscription entry per tick, so a pane
// printing a new terminal title twenty times a second outruns the
// subscription's pane.updated entry; the daemon answers that lag
// (triage.Lag). In a session of its own, a tab's second pane prints a
// title every 50 ms for the whole part, and a quiet tab's shell runs a
// pipeline that prints each line appended to a file as its title. The
// same run twice: herdr alone for restSpans spans of chattyFor, a new
// title appended every chattyGap; then a daemon naming tabs {title|dir},
// once past its first realFirstFor, for as many spans. Each sample runs
// from the append to the daemon's log line of herdr's answer to renaming
// the quiet tab to that title; herdr's CPU and requests per span as the
// at-rest rows count them.

// chattyFor is each span's length, from the command line.
var chattyFor time.Duration

// chattyGap spaces the quiet pane's titles: a title-driven name changes
// a few times a minute, as an agent's task or a program's status does.
const chattyGap = 5 * time.Second

// chattySession is the realchatty session on rs: the quiet tab, and the
// file whose lines become its pane's titles.
type chattySession struct {
	quiet  realTab
	titles string
}

// realChattyRows measures the realchatty part and returns its rows and
// their note.
func (w *world) realChattyRows(bin string) ([]row, string, error) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		return nil, "", err
	}
	srv, err := realherdr.Start(bin, realherdr.Options{Shell: shell, Env: []string{"HERDR_LOG=herdr=debug"}})
	if err != nil {
		return nil, "", err
	}
	rs := &realServer{srv: srv, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}
	defer rs.close()
	cs, err := w.chattySession(rs)
	if err != nil {
		return nil, "", err
	}
	pid, err := herdrServerPID(rs)
	if err != nil {
		return nil, "", err
	}
	alone, _, err := cs.spans(rs, pid, nil)
	if err != nil {
		return nil, "", fmt.Errorf("no daemon: %w", err)
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr, a chatty pane: herdr alone done")
	d, err := w.startRealDaemon(rs, ringPath, rs.srv.Socket, filepath.Join(w.dir, "real-chatty.json"), "--format", "{title|dir}")
	if err != nil {
		return nil, "", err
	}
	defer d.stop()
	time.Sleep(realFirstFor)
	with, took, err := cs.spans(rs, pid, d)
	if err != nil {
		return nil, "", fmt.Errorf("with the daemon: %w", err)
	}
	name := "real herdr, a pane titling itself 20 times a second"
	rows := []row{
		{fmt.Sprintf("%s: another pane's title -> its tab renamed (%d titles)", name, len(took)), pcts(took), "p95 ≤ 1 s"},
		{name + ": herdr's CPU, no daemon", alone.herdr.format(2), "-"},
		daemonRestRow(name+": our daemon", with, alone),
	}
	note := fmt.Sprintf("Chatty rows: a real herdr of its own, logging at debug level, one workspace of two tabs of bash: the first tab's second pane prints a new terminal title every 50 ms for the whole part (its first pane runs an agent, reported with `pane.report_agent`, and leads the tab), the second tab's shell runs a pipeline printing each line appended to a file as its title, one every %v; the daemon runs with default run flags and --format {title|dir}. The same run with no daemon, then with the daemon once past its first %v: %d spans of %v each, CPU and requests as in the at-rest rows. Each sample runs from the line's append to the daemon's log line of herdr's answer to the tab's rename.",
		chattyGap, realFirstFor, restSpans, chattyFor)
	return rows, note, nil
}

// chattySession opens the session on rs: the chatty tab and the quiet
// one, both shells waiting in their programs.
func (w *world) chattySession(rs *realServer) (chattySession, error) {
	if err := os.WriteFile(filepath.Join(rs.srv.Home, ".bashrc"), []byte("PS1='$ '\n"), 0o600); err != nil {
		return chattySession{}, err
	}
	tabs, err := rs.openTabs([]string{"logs", "quiet"})
	if err != nil {
		return chattySession{}, err
	}
	lead, err := rs.split(tabs[0].pane, filepath.Join(rs.srv.Home, "logs"))
	if err != nil {
		return chattySession{}, err
	}
	cs := chattySession{quiet: tabs[1], titles: filepath.Join(rs.srv.Home, "quiet", ".titles")}
	if err := os.WriteFile(cs.titles, nil, 0o600); err != nil {
		return cs, err
	}
	time.Sleep(2 * time.Second) // the shells' start-up
	for _, step := range []func() error{
		rs.report(lead, herdr.StatusIdle),
		rs.typeLine(tabs[0].pane, `i=0; while :; do i=$((i+1)); printf '\033]2;chatty %s\007' $i; sleep 0.05; done`),
		rs.typeLine(cs.quiet.pane, "tail -n0 -f "+cs.titles+` | while read -r x; do printf '\033]2;%s\007' "$x"; done`),
	} {
		if err := step(); err != nil {
			return cs, err
		}
	}
	time.Sleep(time.Second)
	return cs, nil
}

// spans runs restSpans spans of chattyFor, each appending a title every
// chattyGap, and returns herdr's CPU and requests per span and, with a
// daemon d, how long each title took to rename the quiet tab.
func (cs chattySession) spans(rs *realServer, pid int, d *realDaemon) (restFigures, []time.Duration, error) {
	var f restFigures
	var took []time.Duration
	n := 0
	for range restSpans {
		var g restFigures
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			var err error
			g, err = measureSpan(rs, pid, daemonPID(d), chattyFor)
			close(stop)
			done <- err
		}()
		for tick := time.NewTicker(chattyGap); ; {
			select {
			case <-tick.C:
				n++
				t, err := cs.title(d, fmt.Sprintf("title %d", n))
				if err != nil {
					tick.Stop()
					<-done
					return f, took, err
				}
				if d != nil {
					took = append(took, t)
				}
				continue
			case <-stop:
				tick.Stop()
			}
			break
		}
		if err := <-done; err != nil {
			return f, took, err
		}
		f.add(g)
	}
	return f, took, nil
}

// title appends title to the quiet pane's file and, with a daemon d,
// returns how long until d had herdr's answer to renaming the quiet tab
// to it.
func (cs chattySession) title(d *realDaemon, title string) (time.Duration, error) {
	from := 0
	if d != nil {
		from = d.renameCount()
	}
	f, err := os.OpenFile(cs.titles, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	_, err = f.WriteString(title + "\n")
	start := time.Now()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || d == nil {
		return 0, err
	}
	t := cs.quiet.target()
	at, ok := d.renamedAt(t, title, from)
	if !ok {
		return 0, fmt.Errorf("%v: no rename to %q within %v", t, title, realWithin)
	}
	return at.Sub(start), nil
}

// daemonPID is d's pid, 0 without a daemon.
func daemonPID(d *realDaemon) int {
	if d == nil {
		return 0
	}
	return d.cmd.Process.Pid
}
