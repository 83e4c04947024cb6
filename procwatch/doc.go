// Package procwatch tells, from the kernel and without asking herdr, when
// the program in front of a local shell or the shell's working directory
// may have changed: the moments a shell hook would nudge the daemon, for
// shells that have no hooks and set no terminal title.
//
// It watches what comes right before such a change, not the change
// itself, which the kernel announces to no one: on Linux, input read from
// the shell's terminal (inotify IN_ACCESS on its pty: a program starts,
// and a cd runs, only after the Enter that asks for it) and the exit of
// the program in front (a pidfd); on macOS, the shell's forks and the
// program's exit (kqueue EVFILT_PROC). Each such event starts a short run
// of looks at the shell (its terminal's foreground process group, that
// group leader's command name, the shell's directory) spread over the
// half second in which a program starts or a shell takes its terminal
// back, and each look that finds something new is reported. A slow look
// at every shell catches what no event precedes (a program suspended with
// Ctrl-Z, the last process of a pipeline ending); a shell whose events
// cannot be watched is looked at often instead.
package procwatch
