//go:build unix

package main

import (
	"errors"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// idleFigures are the per-pass costs of a settled daemon.
type idleFigures struct {
	protocol                 int
	conns, procCalls, hedges float64
	passes                   int
}

// idlePass counts socket connections, process_info calls and hedged reads
// (from the daemon's debug log) per pass of a settled daemon polling every
// 100 ms over 4 real shells.
func (w *world) idlePass() (idleFigures, error) {
	var f idleFigures
	srv, _, _, err := w.shellServer(plainShells(4), noEnv)
	if err != nil {
		return f, err
	}
	log := &testutil.Buffer{}
	d, err := w.startDaemonLog(srv, "idle-pass.json", log, "--poll", "100ms", "--rest-poll", "100ms", "--log-level", "debug")
	if err != nil {
		return f, err
	}
	defer stopProc(d)
	time.Sleep(500 * time.Millisecond) // let the event stream settle
	srv.ResetCounters()
	mark := len(log.String())
	time.Sleep(3 * time.Second)
	f.passes = srv.Calls("session.snapshot")
	if f.passes == 0 {
		return f, errors.New("no pass in 3 s at --poll 100ms")
	}
	n := float64(f.passes)
	f.protocol = srv.Protocol()
	f.conns = float64(srv.Connections()) / n
	f.procCalls = float64(srv.Calls("pane.process_info")) / n
	f.hedges = float64(strings.Count(log.String()[mark:], "hedging a late read")) / n
	return f, nil
}
