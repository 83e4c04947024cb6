package procwatch

import (
	"encoding/binary"
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// watchExits opens a pidfd for each process in front: it turns readable
// when the process exits.
func (k *linux) watchExits(sh *shell, pids []int) error {
	k.unwatchExits(sh)
	if k.noPidfd != nil {
		return &lack{what: "no pidfd_open (a kernel before 5.3)", err: k.noPidfd}
	}
	st := k.state(sh)
	for _, pid := range pids {
		fd, err := k.sys.pidfdOpen(pid)
		if err != nil {
			return k.pidfdLack(err)
		}
		if err := k.add(fd); err != nil {
			unix.Close(fd)
			return err
		}
		st.pidfds = append(st.pidfds, fd)
		k.exits[int32(fd)] = sh
	}
	return nil
}

// pidfdLack names what pidfd_open refused: ESRCH (the process ended
// already) is no lack, the next look sees it.
func (k *linux) pidfdLack(err error) error {
	switch {
	case errors.Is(err, unix.ENOSYS):
		k.noPidfd = err
		return &lack{what: "no pidfd_open (a kernel before 5.3)", err: err}
	case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE):
		return &lack{what: "no file descriptor for a pidfd", fix: "raise the open-file limit (ulimit -n)", err: err}
	}
	return err
}

func (k *linux) unwatchExits(sh *shell) {
	st := k.state(sh)
	for _, fd := range st.pidfds {
		delete(k.exits, int32(fd))
		_ = unix.EpollCtl(k.ep, unix.EPOLL_CTL_DEL, fd, nil)
		unix.Close(fd)
	}
	st.pidfds = st.pidfds[:0]
}

func (k *linux) wait(timeout time.Duration) []event {
	var evs [32]unix.EpollEvent
	ms := int((timeout + time.Millisecond - 1) / time.Millisecond)
	n, err := unix.EpollWait(k.ep, evs[:], ms)
	if err != nil {
		return nil // EINTR: the caller loops
	}
	var out []event
	for _, ev := range evs[:n] {
		switch fd := ev.Fd; {
		case int(fd) == k.ev:
			var b [8]byte
			_, _ = unix.Read(k.ev, b[:])
		case int(fd) == k.ino:
			out = append(out, k.inotified()...)
		default:
			// An exit: a pidfd stays readable, so the shell's go; the
			// looks that follow arm those of what comes next.
			if sh := k.exits[fd]; sh != nil {
				k.unwatchExits(sh)
				sh.exitEvents, sh.exits = false, nil
				out = append(out, event{sh: sh})
			}
		}
	}
	return out
}

// inotified reads the inotify events waiting and returns an input event
// for each shell whose terminal was read from. A full queue may have
// dropped some: every shell has one then.
func (k *linux) inotified() []event {
	var out []event
	var buf [4096]byte
	for {
		n, err := unix.Read(k.ino, buf[:])
		if err != nil || n < unix.SizeofInotifyEvent {
			return out
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			off += unix.SizeofInotifyEvent + int(binary.NativeEndian.Uint32(buf[off+12:]))
			switch {
			case mask&unix.IN_Q_OVERFLOW != 0:
				for _, shs := range k.ttys {
					out = inputs(out, shs)
				}
			case mask&unix.IN_IGNORED != 0:
				// The terminal is gone (its pane closed): the shell's
				// next look finds it gone too.
				for _, sh := range k.ttys[wd] {
					k.state(sh).wd = -1
					out = append(out, event{sh: sh})
				}
				delete(k.ttys, wd)
			case mask&unix.IN_MODIFY != 0:
				for _, sh := range k.ttys[wd] {
					out = append(out, event{sh: sh, output: true})
				}
				if mask&unix.IN_ACCESS != 0 {
					out = inputs(out, k.ttys[wd])
				}
			default:
				out = inputs(out, k.ttys[wd])
			}
		}
	}
}

// inputs adds an input event for each of shells.
func inputs(evs []event, shells []*shell) []event {
	for _, sh := range shells {
		evs = append(evs, event{sh: sh, input: true})
	}
	return evs
}

func (k *linux) wake() {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	_, _ = unix.Write(k.ev, b[:])
}

func (k *linux) close() error {
	for _, fd := range []int{k.ino, k.ev, k.ep} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	return nil
}
