package herdr_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/seccomp"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// refuseEnv names, in a re-executed test binary, the errno its seccomp
// filter answers io_uring_setup with.
const refuseEnv = "HERDR_TEST_REFUSE_IO_URING"

// inChild runs test name again in a test binary of its own with env
// added, and fails if it fails there. It returns false in that child:
// the caller then runs the test's body.
func inChild(t *testing.T, name string, env ...string) bool {
	t.Helper()
	if os.Getenv(refuseEnv) != "" || os.Getenv(herdr.PlainRequestsEnv) != "" {
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("child %v: %v\n%s", env, err, out)
	}
	return true
}

// Where the kernel refuses io_uring (here a seccomp filter, as container
// runtimes install), every kind of request still works, the plain way,
// and RequestPath says why; the client says so once, at debug level.
func TestRequestsFallBackWhenIOURingIsRefused(t *testing.T) {
	for _, errno := range []string{"EPERM", "ENOSYS"} {
		t.Run(errno, func(t *testing.T) {
			if inChild(t, "TestRequestsFallBackWhenIOURingIsRefused/"+errno, refuseEnv+"="+errno) {
				return
			}
			if os.Getenv(refuseEnv) != errno {
				t.Skip("the other child's")
			}
			want := map[string]syscall.Errno{"EPERM": syscall.EPERM, "ENOSYS": syscall.ENOSYS}[errno]
			if err := seccomp.RefuseIOURing(want); err != nil {
				t.Fatal(err)
			}
			var logged testutil.Buffer
			log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := herdr.New(startSim(t), herdr.WithLogger(log))
			everyKindOfRequest(t, c)
			p := c.RequestPath()
			if p.Ring || p.Errno != want {
				t.Errorf("RequestPath = %+v, want the plain path for %v", p, want)
			}
			if n := strings.Count(logged.String(), "why="); n != 1 {
				t.Errorf("%d debug lines about the path, want 1:\n%s", n, logged.String())
			}
		})
	}
}

// The bench's and tests' switch: the plain path, with the reason.
func TestPlainRequestsEnv(t *testing.T) {
	if inChild(t, "TestPlainRequestsEnv", herdr.PlainRequestsEnv+"=1") {
		return
	}
	c := herdr.New(startSim(t))
	everyKindOfRequest(t, c)
	if p := c.RequestPath(); p.Ring || !strings.Contains(p.Why, herdr.PlainRequestsEnv) || p.Errno != 0 {
		t.Errorf("RequestPath = %+v, want the plain path for %s", p, herdr.PlainRequestsEnv)
	}
}

// On a kernel that has io_uring, requests take it.
func TestRequestsTakeIOURing(t *testing.T) {
	c := herdr.New(startSim(t))
	everyKindOfRequest(t, c)
	p := c.RequestPath()
	if p.Errno != 0 || strings.Contains(p.Why, "lacks") {
		t.Skipf("io_uring unavailable here: %v", p)
	}
	if !p.Ring && os.Getenv(herdr.PlainRequestsEnv) == "" {
		t.Errorf("RequestPath = %+v, want the ring", p)
	}
}

func startSim(t *testing.T) string {
	srv := herdrtest.Start(t, herdrsim.WithProtocol(20), herdrsim.WithTick(fastTick))
	srv.NewWorkspace("repo", "/tmp")
	return srv.SocketPath()
}

// everyKindOfRequest sends a read, a rename and a subscription, and
// checks the answers.
func everyKindOfRequest(t *testing.T, c *herdr.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	snap, err := c.Snapshot(ctx)
	if err != nil || len(snap.Tabs) != 1 {
		t.Fatalf("snapshot: %+v, %v", snap, err)
	}
	if tab, err := c.RenameTab(ctx, snap.Tabs[0].ID, "named"); err != nil || tab.Label != "named" {
		t.Fatalf("rename: %+v, %v", tab, err)
	}
	s, err := c.Subscribe(ctx, []herdr.Subscription{{Type: "tab.renamed"}})
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if ev, err := s.Next(); err != nil || ev.Kind != herdr.EventKind("tab.renamed") {
		t.Errorf("first event: %+v, %v; want the rename", ev, err)
	}
	s.Close()
}
