package procwatch

import (
	"io"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"golang.org/x/sys/unix"
)

// eventless is Linux's kernel without inotify and pidfds, as on a machine
// whose inotify instances are used up and whose kernel predates pidfds.
func eventless() (kernel, error) {
	k, err := newKernel()
	if err != nil {
		return nil, err
	}
	lk := k.(*linux)
	if lk.ino >= 0 {
		_ = unix.EpollCtl(lk.ep, unix.EPOLL_CTL_DEL, lk.ino, nil)
		unix.Close(lk.ino)
		lk.ino = -1
	}
	lk.noPidfd = true
	return lk, nil
}

// Without terminal events (inotify used up) and pidfds, the same changes
// are reported by looks alone.
func TestChangesAreReportedWithoutEvents(t *testing.T) {
	w := startExitAndCd(t, eventless, func(string, uint64, *Watcher) {})
	if e := w.Stats().Events; e != 0 {
		t.Fatalf("%d events from a kernel that has none", e)
	}
}

// BenchmarkLook is the cost of one look at a shell, at its prompt and with
// a program in front: what the slow look costs each watched shell every
// second, and each event a run of seven.
//
//	go test -run '^$' -bench Look ./procwatch/
func BenchmarkLook(b *testing.B) {
	for _, c := range []struct{ name, keys string }{{"prompt", ""}, {"program", "sleep 60\n"}} {
		b.Run(c.name, func(b *testing.B) {
			cmd, tty := testutil.PlainShell(b, "")
			if c.keys != "" {
				if _, err := io.WriteString(tty, c.keys); err != nil {
					b.Fatal(err)
				}
			}
			k, err := newKernel()
			if err != nil {
				b.Fatal(err)
			}
			defer k.close()
			sh := &shell{key: "p", pid: cmd.Process.Pid}
			defer k.forget(sh)
			for {
				fp, err := k.read(sh)
				if err != nil {
					b.Fatal(err)
				}
				if c.keys == "" || fp.leader == "sleep" {
					break
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := k.read(sh); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
