package procwatch

import (
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// kernelWith is Linux's kernel with sys standing in for its calls.
func kernelWith(sys linuxSys) func() (kernel, error) {
	return func() (kernel, error) {
		k, err := newLinux(sys)
		if err != nil {
			return nil, err
		}
		return k, nil
	}
}

// eventless is the kernel of a machine whose user has no inotify instance
// left (editors took all 128) and whose kernel predates pidfds: no event
// comes for any shell.
func eventless() (kernel, error) {
	sys := realSys
	sys.inotifyInit = func() (int, error) { return -1, unix.EMFILE }
	sys.pidfdOpen = func(int) (int, error) { return -1, unix.ENOSYS }
	return kernelWith(sys)()
}

// limits stand in for a user's inotify instances and watches: so many
// left, then EMFILE and ENOSPC, until raised.
type limits struct {
	mu                 sync.Mutex
	instances, watches int
}

func (l *limits) raise(instances, watches int) {
	l.mu.Lock()
	l.instances, l.watches = instances, watches
	l.mu.Unlock()
}

// take takes one of n, or says there is none left.
func (l *limits) take(n *int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if *n == 0 {
		return false
	}
	*n--
	return true
}

func (l *limits) sys() linuxSys {
	sys := realSys
	sys.inotifyInit = func() (int, error) {
		if !l.take(&l.instances) {
			return -1, unix.EMFILE
		}
		return realSys.inotifyInit()
	}
	sys.addWatch = func(ino int, path string, mask uint32) (int, error) {
		if !l.take(&l.watches) {
			return -1, unix.ENOSPC
		}
		return realSys.addWatch(ino, path, mask)
	}
	return sys
}

// BenchmarkLook is the cost of one look at a shell, quick (the stat
// preads) and deep (command lines and directories too), at its prompt
// and with a program in front: a deep look is what the slow look costs
// each watched shell every second, and each event a run of seven; a
// quick one what a shell without events costs 1/blindEvery times a
// second.
//
//	go test -run '^$' -bench Look ./procwatch/
func BenchmarkLook(b *testing.B) {
	for _, c := range []struct{ name, keys, comm string }{{"prompt", "", "bash"}, {"program", "sleep 300\n", "sleep"}} {
		tm := startTerm(b, "bash", "")
		if c.keys != "" {
			tm.run(c.keys, leading(c.comm))
		}
		r, err := procinfo.NewFrontReader(tm.pid())
		if err != nil {
			b.Fatal(err)
		}
		for _, deep := range []bool{false, true} {
			name := c.name + "/quick"
			if deep {
				name = c.name + "/deep"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := r.Look(deep); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		r.Close()
	}
}
