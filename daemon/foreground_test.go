package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/gitinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// On herdr up to 0.8, foreground_cwd is the cwd of any member of the
// foreground group other than the shell when the leader sits where the
// shell does, so a background job left in the shell's own group (fish
// starts its completion generator before it has job control) lends the
// pane its directory while the shell is at its prompt. With the shell in
// front, the tab keeps the shell's directory.
func TestShellInFrontNamesItsOwnDirectory(t *testing.T) {
	t.Parallel()
	for _, proto := range []int{17, 19, 20, 22} {
		for _, format := range []string{"{proc|dir}", "{dir}"} {
			t.Run(fmt.Sprintf("%d %s", proto, format), func(t *testing.T) {
				f := newFixture(t, format, nil, herdrsim.WithProtocol(proto))
				_, _, p1 := f.srv.NewWorkspace("main", home+"/rmk")
				f.srv.SetShellPID(p1, 4242)
				// The job's folder must exist: protocol 17 reports only
				// an existing directory.
				job := t.TempDir() + "/which"
				if err := os.Mkdir(job, 0o700); err != nil {
					t.Fatal(err)
				}
				f.srv.SetForeground(p1,
					herdrsim.Proc{PID: 4242, Argv: []string{"fish"}, Cwd: home + "/rmk"},
					herdrsim.Proc{Argv: []string{"bash", "/root/.pyenv/libexec/pyenv-exec"}, Cwd: job})
				f.once()
				f.wantLabels("rmk")
			})
		}
	}
}

// argvInspector is fakeInspector with command lines: what /proc would say
// of the simulated shell and of its fork before and after the exec.
type argvInspector struct {
	fakeInspector
	mu   sync.Mutex
	argv map[int][]string
}

func (a *argvInspector) set(pid int, argv ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.argv[pid] = argv
}

// ReadFront is the simulated look with the command lines /proc would
// show.
func (a *argvInspector) ReadFront(pid int) (procinfo.Front, error) {
	f, err := a.fakeInspector.ReadFront(pid)
	a.mu.Lock()
	defer a.mu.Unlock()
	if argv, ok := a.argv[f.ShellPID]; ok {
		f.ShellArgv, f.ShellComm = slices.Clone(argv), argv[0]
	}
	if argv, ok := a.argv[f.Leader.PID]; ok {
		f.Leader.Argv, f.Leader.Comm = slices.Clone(argv), argv[0]
	}
	return f, err
}

func (a *argvInspector) Process(pid int) (procinfo.Proc, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if argv, ok := a.argv[pid]; ok {
		return procinfo.Proc{PID: pid, Argv: slices.Clone(argv)}, nil
	}
	return procinfo.Proc{}, os.ErrNotExist
}

// A shell forks, makes the child's group the terminal's, and only then
// does the child exec the program typed. Until the exec the group in front
// is a copy of the shell; on a loaded machine that lasts long enough for a
// preexec watcher, or a pass, to look. The copy is not the program: the
// watcher waits for the exec, and a pass that met the copy looks again.
func TestForkBeforeExecIsNotTheProgram(t *testing.T) {
	const shell, child = 4242, 5000
	fork := func(f *fixture, insp *argvInspector, pane string) {
		insp.set(child, "fish")
		f.srv.SetForeground(pane, herdrsim.Proc{PID: child, Argv: []string{"fish"}})
	}
	exec := func(f *fixture, insp *argvInspector, pane string) {
		insp.set(child, "tee")
		f.srv.SetForeground(pane, herdrsim.Proc{PID: child, Argv: []string{"tee"}})
	}
	setup := func(t *testing.T, poll time.Duration) (*fixture, *argvInspector, string) {
		f := newFixture(t, "{proc|dir}", func(o *Options) { o.Poll = poll })
		insp := &argvInspector{fakeInspector: fakeInspector{f.srv}, argv: map[int][]string{shell: {"fish"}}}
		f.setInspector(insp)
		_, _, p1 := f.srv.NewWorkspace("main", home+"/rmk")
		f.srv.SetShellPID(p1, shell)
		return f, insp, p1
	}

	t.Run("preexec watcher", func(t *testing.T) {
		f, insp, p1 := setup(t, 0)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.d.Run(ctx, nil) }()
		defer func() { cancel(); <-done }()
		waitFor(t, "first pass", func() bool { return f.labels()[0] == "rmk" })
		// No pass of the daemon's own may come after the exec.
		waitFor(t, "the passes after subscribing", f.subscribePassesDone)
		passes := f.traced(TracePass)
		fork(f, insp, p1)
		if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenPreexec); err != nil {
			t.Fatal(err)
		}
		// The exec comes once a pass has met the copy, or after 300 ms
		// when none does.
		deadline := time.Now().Add(300 * time.Millisecond)
		for f.traced(TracePass) == passes && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		exec(f, insp, p1)
		waitFor(t, "the program named", func() bool { return f.labels()[0] == "tee" })
	})

	t.Run("poll", func(t *testing.T) {
		f, insp, p1 := setup(t, time.Hour)
		f.once()
		f.wantLabels("rmk")
		fork(f, insp, p1)
		f.once()
		f.wantLabels("rmk")
		exec(f, insp, p1)
		f.once()
		f.wantLabels("tee")
	})
}

// {repo} and {branch} come from the directory the tab is named from: with
// the shell in front, the shell's, not that of a background job in its
// group that sits in another work tree.
func TestShellInFrontNamesItsOwnRepo(t *testing.T) {
	root := t.TempDir()
	repos := map[string]string{"shop": "main", "pyenv": "master"}
	for repo, branch := range repos {
		if err := os.MkdirAll(filepath.Join(root, repo, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, repo, ".git", "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, "{repo}:{branch}", func(o *Options) { o.Naming.Git = gitinfo.New() }, herdrsim.WithProtocol(20))
	_, _, p1 := f.srv.NewWorkspace("main", filepath.Join(root, "shop"))
	f.srv.SetShellPID(p1, 4242)
	f.srv.SetForeground(p1,
		herdrsim.Proc{PID: 4242, Argv: []string{"fish"}, Cwd: filepath.Join(root, "shop")},
		herdrsim.Proc{Argv: []string{"bash", "pyenv-exec"}, Cwd: filepath.Join(root, "pyenv")})
	f.once()
	f.wantLabels("shop:main")
}
