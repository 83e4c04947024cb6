package seccomp

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

const childEnv = "SECCOMP_TEST_CHILD"

// In a process of its own, the filter makes io_uring_setup fail with the
// errno asked for, on every thread, and leaves other calls alone.
func TestRefuseIOURing(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		refusedChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRefuseIOURing$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRefuseIOURing") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func refusedChild(t *testing.T) {
	if err := RefuseIOURing(unix.EPERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 4)
	for range 4 { // on whichever threads the goroutines land
		go func() {
			var p [120]byte
			_, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 2, uintptr(unsafe.Pointer(&p)), 0)
			done <- e
		}()
	}
	for range 4 {
		if e := <-done; !errors.Is(e, unix.EPERM) {
			t.Errorf("io_uring_setup under the filter: errno %v, want EPERM", e)
		}
	}
	if _, err := os.Getwd(); err != nil {
		t.Errorf("getcwd under the filter: %v", err)
	}
}
