package procwatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"
)

const supported = true

// darwin watches shells' forks (a program starts with one) and their
// programs' exits and execs with kqueue's EVFILT_PROC. macOS tells no one
// of terminal input, so a cd, which forks nothing, is found by looking.
type darwin struct {
	kq int
	// procs maps a watched pid (a shell, or the leader in front of one)
	// to its shell.
	procs map[uint64]*shell
}

// darwinShell is what darwin holds for one shell.
type darwinShell struct{ leader int } // 0: none watched

func newKernel() (kernel, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("procwatch: kqueue: %w", err)
	}
	k := &darwin{kq: kq, procs: map[uint64]*shell{}}
	if err := k.change(0, unix.EVFILT_USER, unix.EV_ADD|unix.EV_CLEAR, 0); err != nil {
		unix.Close(kq)
		return nil, fmt.Errorf("procwatch: kqueue user event: %w", err)
	}
	return k, nil
}

func (k *darwin) change(ident uint64, filter int16, flags uint16, fflags uint32) error {
	ev := []unix.Kevent_t{{Ident: ident, Filter: filter, Flags: flags, Fflags: fflags}}
	_, err := unix.Kevent(k.kq, ev, nil, nil)
	return err
}

func (k *darwin) state(sh *shell) *darwinShell {
	if st, ok := sh.os.(*darwinShell); ok {
		return st
	}
	st := &darwinShell{}
	sh.os = st
	return st
}

// read looks at the shell: its terminal's foreground group (e_tpgid), the
// group leader's name and the shell's directory.
func (k *darwin) read(sh *shell) (fingerprint, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", sh.pid)
	if err != nil {
		return fingerprint{}, err
	}
	if kp.Proc.P_pid != int32(sh.pid) {
		return fingerprint{}, errors.New("no such process")
	}
	fp := fingerprint{pgid: int(kp.Eproc.Tpgid)}
	if fp.pgid > 0 && fp.pgid != sh.pid {
		if lp, err := unix.SysctlKinfoProc("kern.proc.pid", fp.pgid); err == nil && lp.Proc.P_pid == int32(fp.pgid) {
			comm := lp.Proc.P_comm[:]
			if i := bytes.IndexByte(comm, 0); i >= 0 {
				comm = comm[:i]
			}
			fp.leader = string(comm)
		}
	}
	fp.cwd, _ = (&process.Process{Pid: int32(sh.pid)}).CwdWithContext(context.Background())
	return fp, nil
}

func (k *darwin) watchShell(sh *shell) bool {
	if k.change(uint64(sh.pid), unix.EVFILT_PROC, unix.EV_ADD|unix.EV_CLEAR, unix.NOTE_FORK|unix.NOTE_EXEC|unix.NOTE_EXIT) != nil {
		return false
	}
	k.procs[uint64(sh.pid)] = sh
	sh.ttyEvents = false
	return true
}

func (k *darwin) unwatchShell(sh *shell) {
	if k.procs[uint64(sh.pid)] == sh {
		delete(k.procs, uint64(sh.pid))
		_ = k.change(uint64(sh.pid), unix.EVFILT_PROC, unix.EV_DELETE, 0)
	}
}

func (k *darwin) watchExit(sh *shell, pid int) bool {
	if k.change(uint64(pid), unix.EVFILT_PROC, unix.EV_ADD|unix.EV_CLEAR, unix.NOTE_EXIT|unix.NOTE_EXEC) != nil {
		return false
	}
	k.procs[uint64(pid)] = sh
	k.state(sh).leader = pid
	return true
}

func (k *darwin) unwatchExit(sh *shell) {
	st := k.state(sh)
	if st.leader == 0 {
		return
	}
	if k.procs[uint64(st.leader)] == sh {
		delete(k.procs, uint64(st.leader))
		_ = k.change(uint64(st.leader), unix.EVFILT_PROC, unix.EV_DELETE, 0)
	}
	st.leader = 0
}

func (k *darwin) forget(*shell) {}

func (k *darwin) wait(timeout time.Duration) []event {
	var evs [32]unix.Kevent_t
	ts := unix.NsecToTimespec(int64(timeout))
	n, err := unix.Kevent(k.kq, nil, evs[:], &ts)
	if err != nil {
		return nil // EINTR: the caller loops
	}
	var out []event
	for _, ev := range evs[:n] {
		if ev.Filter != unix.EVFILT_PROC {
			continue // the wake-up
		}
		sh := k.procs[ev.Ident]
		if sh == nil {
			continue
		}
		if ev.Fflags&unix.NOTE_EXIT != 0 {
			// The kernel drops an exited process's events itself.
			delete(k.procs, ev.Ident)
			if st := k.state(sh); uint64(st.leader) == ev.Ident {
				st.leader, sh.exitEvents = 0, false
			}
		}
		out = append(out, event{sh: sh})
	}
	return out
}

func (k *darwin) wake() {
	_ = k.change(0, unix.EVFILT_USER, 0, unix.NOTE_TRIGGER)
}

func (k *darwin) close() error { return unix.Close(k.kq) }
