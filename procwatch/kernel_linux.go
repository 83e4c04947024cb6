package procwatch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

const supported = true

// linux watches shells' terminals with inotify (IN_ACCESS: a read from
// the terminal, which a shell makes for every key typed) and programs'
// exits with pidfds, all in one epoll set, woken by an eventfd.
type linux struct {
	ep, ino, ev int
	// ttys maps an inotify watch to the shells whose terminal it is;
	// exits maps a pidfd to the shell whose program it is.
	ttys  map[int32][]*shell
	exits map[int32]*shell
	// noPidfd: the kernel has no pidfd_open (before 5.3).
	noPidfd bool
}

// linuxShell is what linux holds for one shell.
type linuxShell struct {
	stat  int   // /proc/<pid>/stat, kept open: a look is one pread
	wd    int32 // its terminal's inotify watch; -1: none
	pidfd int   // its program's pidfd; -1: none
}

func newKernel() (kernel, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("procwatch: epoll: %w", err)
	}
	k := &linux{ep: ep, ino: -1, ev: -1, ttys: map[int32][]*shell{}, exits: map[int32]*shell{}}
	if k.ev, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		k.close()
		return nil, fmt.Errorf("procwatch: eventfd: %w", err)
	}
	if err := k.add(k.ev); err != nil {
		k.close()
		return nil, err
	}
	// Without inotify (its instances used up) the shells are looked at
	// often instead.
	if ino, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err == nil {
		k.ino = ino
		if err := k.add(ino); err != nil {
			k.close()
			return nil, err
		}
	}
	return k, nil
}

func (k *linux) add(fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(k.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("procwatch: epoll add: %w", err)
	}
	return nil
}

func (k *linux) state(sh *shell) *linuxShell {
	if st, ok := sh.os.(*linuxShell); ok {
		return st
	}
	st := &linuxShell{stat: -1, wd: -1, pidfd: -1}
	sh.os = st
	return st
}

// read looks at the shell: tpgid from its stat, the group leader's comm,
// and its cwd.
func (k *linux) read(sh *shell) (fingerprint, error) {
	st := k.state(sh)
	if st.stat < 0 {
		fd, err := unix.Open("/proc/"+strconv.Itoa(sh.pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fingerprint{}, err
		}
		st.stat = fd
	}
	var buf [1024]byte
	stat, err := preadStat(st.stat, buf[:])
	if err != nil {
		return fingerprint{}, err
	}
	fp := fingerprint{pgid: stat.TPGID}
	if fp.pgid > 0 && fp.pgid != sh.pid {
		// A leader that cannot be read is gone: "" is a change too.
		fp.leader = leaderComm(fp.pgid, buf[:])
	}
	// A cwd we may not read (another user's shell) stays "", unchanged.
	fp.cwd, _ = os.Readlink("/proc/" + strconv.Itoa(sh.pid) + "/cwd")
	return fp, nil
}

// leaderComm is the command name of process pid, "" when it cannot be
// read.
func leaderComm(pid int, buf []byte) string {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer unix.Close(fd)
	st, err := preadStat(fd, buf)
	if err != nil {
		return ""
	}
	return st.Comm
}

// preadStat reads a /proc/<pid>/stat file kept open. A process that
// ended answers ESRCH.
func preadStat(fd int, buf []byte) (procinfo.Stat, error) {
	n, err := unix.Pread(fd, buf, 0)
	for err == unix.EINTR {
		n, err = unix.Pread(fd, buf, 0)
	}
	if err != nil {
		return procinfo.Stat{}, err
	}
	if n == 0 {
		return procinfo.Stat{}, errors.New("empty stat")
	}
	return procinfo.ParseStat(buf[:n])
}

// watchShell watches the shell's terminal: the one of fds 0-2 that is its
// controlling terminal, through /proc, so the watch is on the very inode
// the shell reads, whatever mount namespace it lives in.
func (k *linux) watchShell(sh *shell) bool {
	st := k.state(sh)
	if k.ino < 0 || st.stat < 0 {
		return false
	}
	var buf [1024]byte
	stat, err := preadStat(st.stat, buf[:])
	if err != nil || stat.TTY == 0 {
		return false
	}
	for fd := range 3 {
		path := "/proc/" + strconv.Itoa(sh.pid) + "/fd/" + strconv.Itoa(fd)
		var s unix.Stat_t
		if unix.Stat(path, &s) != nil || s.Mode&unix.S_IFMT != unix.S_IFCHR || int(s.Rdev) != stat.TTY {
			continue
		}
		wd, err := unix.InotifyAddWatch(k.ino, path, unix.IN_ACCESS)
		if err != nil {
			return false
		}
		st.wd = int32(wd)
		k.ttys[st.wd] = append(k.ttys[st.wd], sh)
		sh.ttyEvents = true
		return true
	}
	return false
}

func (k *linux) unwatchShell(sh *shell) {
	st := k.state(sh)
	if st.wd < 0 {
		return
	}
	rest := k.ttys[st.wd][:0]
	for _, o := range k.ttys[st.wd] {
		if o != sh {
			rest = append(rest, o)
		}
	}
	if len(rest) == 0 {
		delete(k.ttys, st.wd)
		_, _ = unix.InotifyRmWatch(k.ino, uint32(st.wd))
	} else {
		k.ttys[st.wd] = rest
	}
	st.wd = -1
}

func (k *linux) watchExit(sh *shell, pid int) bool {
	if k.noPidfd {
		return false
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ENOSYS) {
			k.noPidfd = true
		}
		return false
	}
	if k.add(fd) != nil {
		unix.Close(fd)
		return false
	}
	k.state(sh).pidfd = fd
	k.exits[int32(fd)] = sh
	return true
}

func (k *linux) unwatchExit(sh *shell) {
	st := k.state(sh)
	if st.pidfd < 0 {
		return
	}
	delete(k.exits, int32(st.pidfd))
	_ = unix.EpollCtl(k.ep, unix.EPOLL_CTL_DEL, st.pidfd, nil)
	unix.Close(st.pidfd)
	st.pidfd = -1
}

func (k *linux) forget(sh *shell) {
	st := k.state(sh)
	if st.stat >= 0 {
		unix.Close(st.stat)
		st.stat = -1
	}
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
			// A program's exit: its pidfd stays readable, so it goes.
			if sh := k.exits[fd]; sh != nil {
				k.unwatchExit(sh)
				sh.exitEvents = false
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
