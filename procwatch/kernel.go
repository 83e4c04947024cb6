package procwatch

import "time"

// kernel is the events a platform offers the watcher; reading a shell is
// procinfo's. All but wake run on the watcher's goroutine.
type kernel interface {
	// watchShell arms the events that come before a program starts in
	// sh, and sets sh.ttyEvents when they come before a cd too (terminal
	// input). The error says why there are none: a *lack when the kernel
	// refused for want of a resource that a limit raised gives back.
	watchShell(sh *shell) error
	unwatchShell(sh *shell)
	// watchExits arms the exit events of pids, the processes in front of
	// sh, in place of those armed before; an error when some could not
	// be armed (a *lack as for watchShell).
	watchExits(sh *shell, pids []int) error
	unwatchExits(sh *shell)
	// wait returns the events that came within timeout, or sooner when
	// woken.
	wait(timeout time.Duration) []event
	wake()
	close() error
}

// event is one of the kernel's events for a shell: input read from its
// terminal, output written to it (when the shell asks for it), or
// another (a fork, the exit of a program in front).
type event struct {
	sh            *shell
	input, output bool
}

// lack is a facility of the kernel that a shell goes without, and what
// gives it back.
type lack struct {
	what string // "no inotify instance"
	fix  string // "raise fs.inotify.max_user_instances"; "" when nothing can
	err  error  // the kernel's answer
}

func (l *lack) Error() string { return l.what + ": " + l.err.Error() }

func (l *lack) Unwrap() error { return l.err }
