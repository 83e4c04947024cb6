package procwatch

import (
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

const supported = true

// linux watches shells' terminals with inotify (IN_ACCESS: a read from
// the terminal, which a shell makes for every key typed) and the exits of
// the processes in front with pidfds, all in one epoll set, woken by an
// eventfd.
type linux struct {
	sys     linuxSys
	ep, ev  int
	ino     int   // -1: no inotify instance
	inoErr  error // why not
	noPidfd error // set once the kernel has said it has no pidfd_open
	// ttys maps an inotify watch to the shells whose terminal it is;
	// exits maps a pidfd to the shell whose program it is.
	ttys  map[int32][]*shell
	exits map[int32]*shell
}

// linuxSys are the kernel's calls that a machine may refuse for want of a
// resource; tests stand in for them.
type linuxSys struct {
	inotifyInit func() (int, error)
	addWatch    func(ino int, path string, mask uint32) (int, error)
	pidfdOpen   func(pid int) (int, error)
}

var realSys = linuxSys{
	inotifyInit: func() (int, error) { return unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC) },
	addWatch:    unix.InotifyAddWatch,
	pidfdOpen:   func(pid int) (int, error) { return unix.PidfdOpen(pid, 0) },
}

// linuxShell is what linux holds for one shell.
type linuxShell struct {
	wd     int32 // its terminal's inotify watch; -1: none
	pidfds []int // the pidfds of the processes in front
}

func newKernel() (kernel, error) {
	k, err := newLinux(realSys)
	if err != nil {
		return nil, err
	}
	return k, nil
}

func newLinux(sys linuxSys) (*linux, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("procwatch: epoll: %w", err)
	}
	k := &linux{sys: sys, ep: ep, ino: -1, ev: -1, ttys: map[int32][]*shell{}, exits: map[int32]*shell{}}
	if k.ev, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		k.close()
		return nil, fmt.Errorf("procwatch: eventfd: %w", err)
	}
	if err := k.add(k.ev); err != nil {
		k.close()
		return nil, err
	}
	// Without inotify (a user's instances all taken) the shells are
	// looked at often instead, and watchShell asks again.
	k.inotify()
	return k, nil
}

// inotify makes the inotify instance if there is none; false when the
// kernel refuses.
func (k *linux) inotify() bool {
	if k.ino >= 0 {
		return true
	}
	ino, err := k.sys.inotifyInit()
	if err != nil {
		k.inoErr = err
		return false
	}
	if err := k.add(ino); err != nil {
		unix.Close(ino)
		k.inoErr = err
		return false
	}
	k.ino, k.inoErr = ino, nil
	return true
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
	st := &linuxShell{wd: -1}
	sh.os = st
	return st
}

// errNoTerminal: the shell has no controlling terminal among its first
// three files, so no input of it can be watched.
var errNoTerminal = errors.New("the shell has no terminal among fds 0-2")

// watchShell watches the shell's terminal: the one of fds 0-2 that is its
// controlling terminal, through /proc, so the watch is on the very inode
// the shell reads, whatever mount namespace it lives in.
func (k *linux) watchShell(sh *shell) error {
	st := k.state(sh)
	if !k.inotify() {
		return inotifyLack(k.inoErr, false)
	}
	tty, err := ttyOf(sh.pid)
	if err != nil {
		return err
	}
	for fd := range 3 {
		path := "/proc/" + strconv.Itoa(sh.pid) + "/fd/" + strconv.Itoa(fd)
		var s unix.Stat_t
		if unix.Stat(path, &s) != nil || s.Mode&unix.S_IFMT != unix.S_IFCHR || int(s.Rdev) != tty {
			continue
		}
		mask := uint32(unix.IN_ACCESS)
		if sh.output {
			mask |= unix.IN_MODIFY
		}
		wd, err := k.sys.addWatch(k.ino, path, mask)
		if err != nil {
			return inotifyLack(err, true)
		}
		st.wd = int32(wd)
		k.ttys[st.wd] = append(k.ttys[st.wd], sh)
		sh.ttyEvents = true
		return nil
	}
	return errNoTerminal
}

// inotifyLack names what inotify refused and the limit that gives it
// back: a user's instances (128 by default) and watches are shared by
// every editor and file watcher the user runs.
func inotifyLack(err error, watch bool) error {
	switch {
	case !watch && errors.Is(err, unix.EMFILE):
		return &lack{what: "no inotify instance", fix: "raise fs.inotify.max_user_instances", err: err}
	case !watch:
		return &lack{what: "no inotify instance", err: err}
	case errors.Is(err, unix.ENOSPC):
		return &lack{what: "no inotify watch left", fix: "raise fs.inotify.max_user_watches", err: err}
	}
	return &lack{what: "no inotify watch on the terminal", err: err}
}

// ttyOf is the controlling terminal's device number of pid.
func ttyOf(pid int) (int, error) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("terminal of pid %d: %w", pid, err)
	}
	defer unix.Close(fd)
	var buf [1024]byte
	n, err := unix.Read(fd, buf[:])
	if err != nil {
		return 0, fmt.Errorf("terminal of pid %d: %w", pid, err)
	}
	st, err := procinfo.ParseStat(buf[:n])
	if err != nil {
		return 0, fmt.Errorf("terminal of pid %d: %w", pid, err)
	}
	if st.TTY == 0 {
		return 0, errNoTerminal
	}
	return st.TTY, nil
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
	sh.ttyEvents = false
}
