//go:build unix

package main

import (
	"fmt"
	"os/exec"
	"slices"
	"time"
)

// nudgeRow is the median wall time of `nudge` beside /bin/true's.
func (w *world) nudgeRow(runs int) (row, error) {
	nudgeMed, trueMed, err := w.nudgeWall(runs)
	if err != nil {
		return row{}, fmt.Errorf("nudge wall time: %w", err)
	}
	return row{fmt.Sprintf("`nudge` wall time, median of %d (`/bin/true`)", runs),
		fmt.Sprintf("%s (%s, x%.1f)", ms(nudgeMed), ms(trueMed), float64(nudgeMed)/float64(trueMed)), "median under 3 ms"}, nil
}

// nudgeWall times runs of the built `nudge` command against a listening
// daemon, interleaved with /bin/true so both see the same load.
func (w *world) nudgeWall(runs int) (nudgeMed, trueMed time.Duration, err error) {
	srv, panes, _, err := w.shellServer(plainShells(1), noEnv)
	if err != nil {
		return 0, 0, err
	}
	d, err := w.startDaemon(srv, "nudge.json")
	if err != nil {
		return 0, 0, err
	}
	defer stopProc(d)
	// Exactly what the shell hooks run inside a herdr pane.
	env := append(w.env(), "HERDR_SOCKET_PATH="+srv.SocketPath())
	var nd, td []time.Duration
	for range runs {
		for _, argv := range [][]string{{w.bin, "nudge", "--quiet", "--when", "precmd", panes[0]}, {"/bin/true"}} {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = env
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return 0, 0, fmt.Errorf("%v: %w", argv, err)
			}
			if argv[0] == w.bin {
				nd = append(nd, time.Since(start))
			} else {
				td = append(td, time.Since(start))
			}
		}
	}
	slices.Sort(nd)
	slices.Sort(td)
	return nd[len(nd)/2], td[len(td)/2], nil
}
