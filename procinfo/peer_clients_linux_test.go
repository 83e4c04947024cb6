package procinfo

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// HerdrClients finds the processes of the server's executable on a
// terminal, and passes over the server, those of that executable on no
// terminal, and those of another executable. sleep stands in for herdr.
func TestHerdrClients(t *testing.T) {
	start := func(cmd *exec.Cmd, onTerminal bool) int {
		t.Helper()
		if onTerminal {
			tty, err := pty.Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = tty.Close() })
		} else {
			cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	server := start(exec.Command("sleep", "60"), false)
	client := start(exec.Command("sleep", "60"), true)
	noTerminal := start(exec.Command("sleep", "61"), false)
	shell, _ := testutil.PlainShell(t, "")
	got, err := HerdrClients(server)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, client) {
		t.Errorf("HerdrClients(%d) = %v: the client %d on a terminal is missing", server, got, client)
	}
	for what, pid := range map[string]int{"the server": server, "one on no terminal": noTerminal, "another executable": shell.Process.Pid} {
		if slices.Contains(got, pid) {
			t.Errorf("HerdrClients(%d) = %v lists %s (%d)", server, got, what, pid)
		}
	}
	if _, err := HerdrClients(0); err == nil {
		t.Error("HerdrClients(0) found clients of no server")
	}
}

// herdr's CLI run in one of herdr's panes (an agent's hook) is no
// client: the server holds its terminal. The test stands in for the
// server, holding the terminal of a process of its own executable.
func TestHerdrClientsPassOverThePanes(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHerdrClientsHelper$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); _ = tty.Close() })
	testutil.WaitFor(t, "the helper on its terminal", func() bool {
		st, err := readStat(cmd.Process.Pid)
		return err == nil && st.TTY != 0
	})
	got, err := HerdrClients(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, cmd.Process.Pid) {
		t.Fatalf("HerdrClients(self) = %v lists %d, on a terminal the server holds", got, cmd.Process.Pid)
	}
}

// helperEnv makes TestHerdrClientsHelper a process that waits.
const helperEnv = "HTR_PROCINFO_CLIENT_HELPER"

// TestHerdrClientsHelper is not a test: it waits, as herdr's CLI in a
// pane, when TestHerdrClientsPassOverThePanes runs it.
func TestHerdrClientsHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("a helper process")
	}
	time.Sleep(time.Minute)
}
