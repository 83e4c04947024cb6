package procinfo

import (
	"errors"

	"golang.org/x/sys/unix"
)

// procSource reads a Front from /proc. Each slot keeps its process's stat
// file open: a look is one pread of it, and a file opened for a process
// that ended answers ESRCH even once its pid is reused.
type procSource struct {
	fds  [slots]int
	pids [slots]int
	buf  [1024]byte
}

func newFrontSource() (frontSource, error) {
	s := &procSource{}
	for i := range s.fds {
		s.fds[i] = -1
	}
	return s, nil
}

func (s *procSource) stat(slot, pid int) (Stat, error) {
	if slot == slotScratch {
		return readStat(pid)
	}
	if s.pids[slot] != pid || s.fds[slot] < 0 {
		s.drop(slot)
		fd, err := unix.Open(procPath(pid, "stat"), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return Stat{}, goneOr(err)
		}
		s.fds[slot], s.pids[slot] = fd, pid
	}
	n, err := unix.Pread(s.fds[slot], s.buf[:], 0)
	for err == unix.EINTR {
		n, err = unix.Pread(s.fds[slot], s.buf[:], 0)
	}
	if err != nil {
		s.drop(slot)
		return Stat{}, goneOr(err)
	}
	if n == 0 {
		s.drop(slot)
		return Stat{}, errors.New("empty stat")
	}
	return ParseStat(s.buf[:n])
}

// drop closes what slot holds.
func (s *procSource) drop(slot int) {
	if s.fds[slot] >= 0 {
		unix.Close(s.fds[slot])
	}
	s.fds[slot], s.pids[slot] = -1, 0
}

func (s *procSource) argv(pid int) []string { return readArgv(pid) }

func (s *procSource) cwd(pid int) string { return readCwd(pid) }

func (s *procSource) shellVar(pid int) (string, bool) { return readShellVar(pid) }

func (s *procSource) children(pid int) ([]int, error) { return children(pid) }

func (s *procSource) close() {
	for i := range s.fds {
		s.drop(i)
	}
}
