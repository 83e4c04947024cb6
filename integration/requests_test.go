package integration

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/seccomp"
)

// refuseEnv makes this test binary a wrapper: it refuses io_uring to
// itself with a seccomp filter, as a container runtime's profile does,
// then execs its arguments, which inherit the filter.
const refuseEnv = "HTR_TEST_REFUSE_IO_URING"

// init runs the wrapper before TestMain builds anything.
func init() {
	if os.Getenv(refuseEnv) == "" {
		return
	}
	if err := seccomp.RefuseIOURing(syscall.EPERM); err != nil {
		fmt.Fprintln(os.Stderr, "io_uring refusing wrapper:", err)
		os.Exit(111)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, refuseEnv+"=") {
			env = append(env, kv)
		}
	}
	err := syscall.Exec(os.Args[1], os.Args[1:], env)
	fmt.Fprintln(os.Stderr, "io_uring refusing wrapper: exec:", err)
	os.Exit(111)
}

// refusingIOURing makes sb's commands run where io_uring_setup fails
// with EPERM.
func refusingIOURing(sb *sandbox) {
	sb.Wrap = []string{os.Args[0]}
	sb.Extra = append(sb.Extra, refuseEnv+"=1")
}

// TestRequestsWhereIOURingIsRefused: in a process whose seccomp filter
// refuses io_uring, the daemon still names tabs, keeps a person's name,
// and status says requests take the plain path and why; where io_uring
// is allowed, status says requests take it.
func TestRequestsWhereIOURingIsRefused(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		out, _, _ := runCLI(t, sb, "status", "--socket", w.Socket())
		if want := "requests io_uring linked connect+send"; !strings.Contains(out, want) && os.Getenv(herdr.PlainRequestsEnv) == "" {
			t.Logf("io_uring not allowed to this test (status: %q): the refusal below is the only path", statusLine(out, "requests"))
		}

		refusingIOURing(sb)
		dirs := mkdirs(t, sb, "projects/rmk", "opt/nixos")
		ws, t1, p1 := w.NewWorkspace(t, dirs[0])
		_, _ = w.NewTab(t, ws, dirs[1])
		d := startWorldDaemon(t, w)
		waitWorldLabels(t, w, ws, "rmk", "nixos")
		w.PersonRename(t, t1, "notes")
		w.Type(t, p1, "tee")
		passes(t, d, 3)
		if got := worldLabel(t, w, t1); got != "notes" {
			t.Errorf("a person's name became %q", got)
		}

		out, errOut, code := runCLI(t, sb, "status", "--socket", w.Socket())
		want := "ok   requests plain connect+write (io_uring refused: EPERM)"
		if os.Getenv(herdr.PlainRequestsEnv) != "" {
			// The tests were told to take the plain path: it says so first.
			want = "ok   requests plain connect+write (" + herdr.PlainRequestsEnv + " is set)"
		}
		if got := statusLine(out, "requests"); got != want {
			t.Errorf("status under the filter: %q, want %q\n%s%s (exit %d)", got, want, out, errOut, code)
		}
		if got := statusLine(out, "herdr"); !strings.HasPrefix(got, "ok ") {
			t.Errorf("status under the filter could not reach herdr: %q", got)
		}
	})
}
