package claim

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// ErrAlreadyRunning means another daemon holds the instance lock for the
// same herdr server.
var ErrAlreadyRunning = errors.New("already running")

// errLockBusy: another process holds a lock tryLockFile asked for.
var errLockBusy = errors.New("lock held by another process")

// Instance is the single-instance lock for one herdr server. The kernel
// drops it when the process dies, so a crash never leaves it stuck.
type Instance struct {
	f    *os.File
	path string
	ino  uint64
}

// AcquireInstance takes the lock at path without blocking. When another
// process holds it, the error wraps ErrAlreadyRunning and names the holder.
func AcquireInstance(path string) (*Instance, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("open instance lock %s: %w", path, err)
	}
	if err := tryLockFile(f); err != nil {
		defer f.Close()
		if errors.Is(err, errLockBusy) {
			holder := "another process"
			if h, ok := ReadHolder(path); ok {
				holder = h.String()
			}
			return nil, fmt.Errorf("%w: %s holds %s", ErrAlreadyRunning, holder, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(self().line()+"\n"), 0)
	}
	in := &Instance{f: f, path: path}
	if fi, err := f.Stat(); err == nil {
		in.ino = safefile.Inode(fi)
	}
	return in, nil
}

// Holder is what a running daemon keeps in its instance lock, as the
// line "pid N since TIME start S"; Release empties it.
type Holder struct {
	PID   int
	Since time.Time // zero when the line has no readable time
	// Start is when the holder's process started, as this machine's
	// kernel keeps it (processStart: clock ticks since boot on Linux,
	// microseconds on macOS, 100 ns on Windows); 0 when the line records
	// none (a daemon from before it was recorded, or a system where it
	// is not read).
	Start uint64
}

// self is the holder this process is.
func self() Holder {
	h := Holder{PID: os.Getpid(), Since: time.Now()}
	h.Start, _ = processStart(h.PID)
	return h
}

// String is the holder as a person reads it: "pid N since TIME", or
// "pid N" when the time is not known.
func (h Holder) String() string {
	if h.Since.IsZero() {
		return "pid " + strconv.Itoa(h.PID)
	}
	return "pid " + strconv.Itoa(h.PID) + " since " + h.Since.Format(time.RFC3339Nano)
}

// line is the holder's line in the lock file: String, and " start S"
// when its start is known. A reader from before the start was recorded
// reads no time from it, and believes the holder while its pid exists.
func (h Holder) line() string {
	if h.Start == 0 || h.Since.IsZero() {
		return h.String()
	}
	return h.String() + " start " + strconv.FormatUint(h.Start, 10)
}

// maxHolderLine bounds what is read of a lock file: the line is short.
const maxHolderLine = 256

// ReadHolder reads the holder of the instance lock at path; false when the
// file names none (no file, an emptied one, another format, or not a
// regular file: a FIFO there must not block the reader).
func ReadHolder(path string) (Holder, bool) {
	b, err := safefile.ReadFile(path, maxHolderLine)
	if err != nil {
		return Holder{}, false
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "pid ")
	if !ok {
		return Holder{}, false
	}
	pidText, sinceText, _ := strings.Cut(rest, " since ")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return Holder{}, false
	}
	h := Holder{PID: pid}
	sinceText, startText, hasStart := strings.Cut(sinceText, " start ")
	if h.Since, err = time.Parse(time.RFC3339, sinceText); err != nil {
		return h, true
	}
	if hasStart {
		// An unreadable start is none: the line is judged by its time.
		h.Start, _ = strconv.ParseUint(startText, 10, 64)
	}
	return h, true
}

// HolderPID is the pid in the instance lock at path, 0 when it names none.
func HolderPID(path string) int {
	h, _ := ReadHolder(path)
	return h.PID
}

// Intact reports whether the lock file at the path is still the one we
// hold: a wiped runtime dir (a logout cleaning /run/user) unlinks it, and
// the next daemon would take a new file without noticing us.
func (in *Instance) Intact() bool {
	fi, err := os.Lstat(in.path)
	return err == nil && safefile.Inode(fi) == in.ino
}

// Release drops the lock. The file stays: unlinking races with the next
// daemon taking it.
func (in *Instance) Release() {
	if in == nil || in.f == nil {
		return
	}
	if in.Intact() {
		_ = in.f.Truncate(0)
	}
	unlockFile(in.f)
	in.f.Close()
	in.f = nil
}

// Claim is everything that makes a daemon the only one for its herdr
// server: the instance lock file in the runtime dir, keyed by the
// socket's identity, and (on Linux) a beacon that survives the dir being
// wiped. Its owner alone calls its methods.
type Claim struct {
	dir    string
	id     string
	inst   *Instance
	beacon net.Listener
}

// Take takes the claim for the herdr server at socket, its lock file in
// dir. An error wrapping ErrAlreadyRunning names the daemon that holds it.
func Take(dir, socket string) (*Claim, error) {
	id, _ := rundir.ServerID(socket)
	c := &Claim{dir: dir, id: id}
	if err := c.take(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Claim) take() error {
	b, err := listenBeacon(c.id)
	if err != nil {
		return err
	}
	inst, err := AcquireInstance(filepath.Join(c.dir, c.id+".lock"))
	if err != nil {
		if b != nil {
			b.Close()
		}
		return err
	}
	c.inst, c.beacon = inst, b
	return nil
}

// Release gives the claim up.
func (c *Claim) Release() {
	if c == nil {
		return
	}
	c.inst.Release()
	if c.beacon != nil {
		c.beacon.Close()
	}
}

// Follow keeps the claim matching the server and the disk: a herdr that
// appeared or restarted has a new socket, and a wiped runtime dir lost
// our lock file. An ErrAlreadyRunning means another daemon got there
// first; the caller should stop.
func (c *Claim) Follow(socket string) error {
	id, _ := rundir.ServerID(socket)
	if id == c.id && c.inst.Intact() {
		return nil
	}
	// herdr is away (restarting) when the socket is gone: the path's
	// claim stands for it meanwhile, since the gone socket's inode number
	// may be another herdr's socket's next, whose daemon must not find it
	// held.
	if _, err := rundir.Dir(); err != nil {
		return err
	}
	next := &Claim{dir: c.dir, id: id}
	if id == c.id {
		// Same server, lock file gone: our beacon still holds the name.
		next.beacon, c.beacon = c.beacon, nil
		inst, err := AcquireInstance(filepath.Join(c.dir, id+".lock"))
		if err != nil {
			c.beacon = next.beacon
			return err
		}
		next.inst = inst
	} else if err := next.take(); err != nil {
		return err
	}
	c.Release()
	*c = *next
	return nil
}
