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

// Processes of the test binary stand in for herdr's: a server on no
// terminal; herdr's CLI run in one of its panes (an agent's hook), on a
// terminal the server holds; another herdr server, holding a pty master
// of its own; a client, on a terminal that is not the server's. Only the
// client is one.
func TestHerdrClientsPassOverPanesAndServers(t *testing.T) {
	server := startHelper(t, "wait", false)
	client := startHelper(t, "wait", true)
	other := startHelper(t, "host", true)
	inPane := startHelper(t, "wait", true) // on a terminal the test holds
	got, err := HerdrClients(server)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, client) {
		t.Errorf("HerdrClients = %v: the client %d is missing", got, client)
	}
	if slices.Contains(got, other) {
		t.Errorf("HerdrClients = %v lists %d, which holds a pty master", got, other)
	}
	got, err = HerdrClients(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, inPane) {
		t.Errorf("HerdrClients(self) = %v lists %d, on a terminal the server holds", got, inPane)
	}
}

// startHelper starts this test binary as TestHerdrClientsHelper playing
// role, on a terminal of its own (held by the test) or on none, once it
// plays it.
func startHelper(t *testing.T, role string, onTerminal bool) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHerdrClientsHelper$")
	cmd.Env = append(os.Environ(), helperEnv+"="+role)
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
	pid := cmd.Process.Pid
	testutil.WaitFor(t, "the helper playing "+role, func() bool {
		st, err := readStat(pid)
		return err == nil && st.TTY != 0 == onTerminal && (role != "host" || hostsTerminals(pid))
	})
	return pid
}

// helperEnv makes TestHerdrClientsHelper a process that waits ("wait")
// or that holds a pty master and waits ("host").
const helperEnv = "HTR_PROCINFO_CLIENT_HELPER"

// TestHerdrClientsHelper is not a test: it plays a part of herdr's for
// TestHerdrClientsPassOverPanesAndServers.
func TestHerdrClientsHelper(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		t.Skip("a helper process")
	case "host":
		master, _, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer master.Close()
	}
	time.Sleep(time.Minute)
}
