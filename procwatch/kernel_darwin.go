package procwatch

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

const supported = true

// darwin watches shells' forks (a program starts with one) and the exits
// and execs of the processes in front with kqueue's EVFILT_PROC. macOS
// tells no one of terminal input, so a cd, which forks nothing, is found
// by looking.
type darwin struct {
	kq int
	// procs maps a watched pid (a shell, or a process in front of one)
	// to its shell.
	procs map[uint64]*shell
}

// darwinShell is what darwin holds for one shell: the processes in front
// whose exits it watches.
type darwinShell struct{ exits []int }

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

func (k *darwin) watchShell(sh *shell) error {
	if err := k.change(uint64(sh.pid), unix.EVFILT_PROC, unix.EV_ADD|unix.EV_CLEAR, unix.NOTE_FORK|unix.NOTE_EXEC|unix.NOTE_EXIT); err != nil {
		return &lack{what: "no kqueue watch of the shell", err: err}
	}
	k.procs[uint64(sh.pid)] = sh
	sh.ttyEvents = false
	return nil
}

func (k *darwin) unwatchShell(sh *shell) {
	if k.procs[uint64(sh.pid)] == sh {
		delete(k.procs, uint64(sh.pid))
		_ = k.change(uint64(sh.pid), unix.EVFILT_PROC, unix.EV_DELETE, 0)
	}
}

func (k *darwin) watchExits(sh *shell, pids []int) error {
	k.unwatchExits(sh)
	st := k.state(sh)
	for _, pid := range pids {
		if err := k.change(uint64(pid), unix.EVFILT_PROC, unix.EV_ADD|unix.EV_CLEAR, unix.NOTE_EXIT|unix.NOTE_EXEC); err != nil {
			return fmt.Errorf("procwatch: kqueue watch of pid %d: %w", pid, err)
		}
		k.procs[uint64(pid)] = sh
		st.exits = append(st.exits, pid)
	}
	return nil
}

func (k *darwin) unwatchExits(sh *shell) {
	st := k.state(sh)
	for _, pid := range st.exits {
		if k.procs[uint64(pid)] == sh {
			delete(k.procs, uint64(pid))
			_ = k.change(uint64(pid), unix.EVFILT_PROC, unix.EV_DELETE, 0)
		}
	}
	st.exits = st.exits[:0]
}

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
		if ev.Fflags&unix.NOTE_EXIT != 0 && ev.Ident != uint64(sh.pid) {
			// The kernel drops an exited process's events itself; the
			// looks that follow arm those of what comes next.
			delete(k.procs, ev.Ident)
			sh.exitEvents, sh.exits = false, nil
		}
		out = append(out, event{sh: sh})
	}
	return out
}

func (k *darwin) wake() {
	_ = k.change(0, unix.EVFILT_USER, 0, unix.NOTE_TRIGGER)
}

func (k *darwin) close() error { return unix.Close(k.kq) }
