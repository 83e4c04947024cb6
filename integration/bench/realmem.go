//go:build unix

package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The daemon's memory at rest, per build: the binary `go build` makes
// (the bench's own, with cgo where a C compiler is found) and the
// release's (`go run ./release`: static, stripped). Each runs as the
// at-rest rows' standalone daemon does, on a real herdr of its own with
// 6 tabs and 6 agents, for as long as those daemons run before their last
// span ends; then its VmRSS is read, with what makes it up from
// /proc/PID/smaps: anonymous memory (heap, stacks, the runtime's own),
// the program file's pages, and libraries'.

// memCase is the session the memory rows run beside.
var memCase = restCase{tabs: 6, agents: 6}

// memBuild is one build of the daemon.
type memBuild struct{ name, bin string }

// memoryRows measures the daemon's memory at rest for each build, both
// at once on servers of their own, and returns the rows and their note.
func (w *world) memoryRows(bin string) ([]row, string, error) {
	self, err := filepath.Abs(w.bin)
	if err != nil {
		return nil, "", err
	}
	builds := []memBuild{{"go build", self}}
	if prebuilt != "" {
		builds[0].name = "-bin " + prebuilt
	} else {
		rel, err := w.releaseBinary()
		if err != nil {
			return nil, "", fmt.Errorf("release build: %w", err)
		}
		builds = append(builds, memBuild{"release build (go run ./release)", rel})
	}
	after := realFirstFor + time.Duration(restSpans)*realIdleFor
	rows := make([]row, len(builds))
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, b := range builds {
		wg.Go(func() { rows[i], errs[i] = w.memoryRow(bin, b, after) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, "", err
	}
	note := fmt.Sprintf("Memory rows: each build's daemon, standalone as in the at-rest rows, on a real herdr of its own with %v, both at once; VmRSS read after %v, and its parts from /proc/PID/smaps.", memCase, after)
	return rows, note, nil
}

// memoryRow runs build b's daemon beside memCase for after and reads its
// memory.
func (w *world) memoryRow(herdrBin string, b memBuild, after time.Duration) (row, error) {
	rs, _, err := w.restServer(herdrBin, memCase)
	if err != nil {
		return row{}, err
	}
	defer rs.close()
	env := rs.srv.Env("XDG_STATE_HOME=" + filepath.Join(w.dir, "state-mem-"+strconv.Itoa(int(time.Now().UnixNano()))))
	cmd, stop, err := startRestDaemon(b.bin, b.name, env)
	if err != nil {
		return row{}, err
	}
	defer stop()
	time.Sleep(after)
	m, err := readResident(cmd.Process.Pid, b.bin)
	if err != nil {
		return row{}, err
	}
	return row{fmt.Sprintf("daemon RSS at rest (VmRSS), real herdr, %v, after %v: %s", memCase, after, b.name),
		m.String(), "≤ 10 MiB"}, nil
}

// resident is a process's resident set in KiB, and its parts.
type resident struct{ total, anon, program, other int }

func (m resident) String() string {
	mib := func(kb int) float64 { return float64(kb) / 1024 }
	return fmt.Sprintf("%.1f MiB: anonymous (heap, stacks, runtime) %.1f, the program file %.1f, other files (libraries) %.1f",
		mib(m.total), mib(m.anon), mib(m.program), mib(m.other))
}

// readResident sums /proc/PID/smaps: each mapping's Rss, as anonymous
// memory, the program file bin's, or another file's.
func readResident(pid int, bin string) (resident, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return resident{}, err
	}
	defer f.Close()
	var m resident
	path := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && len(fields[1]) == 4:
			path = ""
			if len(fields) >= 6 && fields[4] != "0" {
				path = fields[5]
			}
		case len(fields) >= 2 && (fields[0] == "Rss:" || fields[0] == "Anonymous:"):
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				return resident{}, fmt.Errorf("/proc/%d/smaps: %q", pid, sc.Text())
			}
			switch {
			case fields[0] == "Anonymous:":
				// A file mapping's private copies count as anonymous.
				m.anon += kb
				if path == bin {
					m.program -= kb
				} else if path != "" {
					m.other -= kb
				}
			case path == "":
				m.total += kb
			case path == bin:
				m.total, m.program = m.total+kb, m.program+kb
			default:
				m.total, m.other = m.total+kb, m.other+kb
			}
		}
	}
	return m, sc.Err()
}

// releaseBinary builds this platform's release archive with the
// release's own command and unpacks its binary.
func (w *world) releaseBinary() (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	out := filepath.Join(w.dir, "release")
	build := exec.Command("go", "run", "./release", "-out", out, "-targets", runtime.GOOS+"/"+runtime.GOARCH)
	build.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if b, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go run ./release: %w\n%s", err, b)
	}
	archives, err := filepath.Glob(filepath.Join(out, "herdrtabrenamer_*_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz"))
	if err != nil || len(archives) != 1 {
		return "", fmt.Errorf("release archive in %s: %v (%v)", out, archives, err)
	}
	bin := filepath.Join(w.dir, "herdrtabrenamer-release")
	return bin, unpackBinary(archives[0], bin)
}

// unpackBinary writes the herdrtabrenamer file of the tar.gz archive to
// bin.
func unpackBinary(archive, bin string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(z)
	for {
		h, err := tr.Next()
		if err != nil {
			return fmt.Errorf("%s: no herdrtabrenamer binary (%w)", archive, err)
		}
		if filepath.Base(h.Name) != "herdrtabrenamer" || h.Typeflag != tar.TypeReg {
			continue
		}
		out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
}
