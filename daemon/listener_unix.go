//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"

	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// nudgeListener receives nudge datagrams. Anything that is not a valid
// nudge is dropped; the listener never blocks a sender.
type nudgeListener struct {
	conn *net.UnixConn
	path string
	ino  uint64
}

// listenNudges binds the nudge socket at path (0600) in the runtime dir
// rundir.Dir has checked. The caller holds the instance claim, so an
// existing file is a stale socket of a dead daemon.
func listenNudges(path string) (*nudgeListener, error) {
	if err := rundir.Check(filepath.Dir(path)); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if _, err := rundir.Dir(); err != nil {
			return nil, err
		}
	}
	_ = os.Remove(path)
	old := syscall.Umask(0o177)
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen for nudges on %s: %w", path, err)
	}
	_ = os.Chmod(path, 0o600)
	_ = conn.SetReadBuffer(1 << 20)
	l := &nudgeListener{conn: conn, path: path}
	if fi, err := os.Lstat(path); err == nil {
		l.ino = safefile.Inode(fi)
	}
	return l, nil
}

// intact reports whether our socket file is still there: a wiped runtime
// dir leaves us listening on a name nobody can reach.
func (l *nudgeListener) intact() bool {
	fi, err := os.Lstat(l.path)
	return err == nil && safefile.Inode(fi) == l.ino
}

// serve reads datagrams until the listener is closed, sending valid nudges
// to out without ever blocking on it: when the daemon is busy, nudges for
// a pane coalesce in the loop, so dropping one here loses nothing that the
// next pass would not see.
func (l *nudgeListener) serve(out chan<- nudge.Message, log *slog.Logger) {
	buf := make([]byte, nudge.MaxDatagram+1)
	for {
		n, _, err := l.conn.ReadFromUnix(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			log.Debug("nudge read failed", "err", err)
			continue
		}
		m, err := nudge.Decode(buf[:n])
		if err != nil {
			log.Debug("dropped invalid nudge", "err", err, "bytes", n)
			continue
		}
		select {
		case out <- m:
		default:
		}
	}
}

// Close stops serve and removes the socket file.
func (l *nudgeListener) Close() error {
	err := l.conn.Close()
	if l.intact() {
		_ = os.Remove(l.path)
	}
	return err
}
