// Package procwatch tells, from the kernel and without asking herdr, when
// the program in front of a local shell or its directory changed, and
// hands over what it read: the moments a shell hook would nudge the
// daemon, for shells that have no hooks and set no terminal title.
//
// It watches what comes right before such a change, not the change
// itself, which the kernel announces to no one: on Linux, input read from
// the shell's terminal (inotify IN_ACCESS on its pty: a program starts,
// and a cd runs, only after the Enter that asks for it) and the exit of
// the processes in front (pidfds); on macOS, the shell's forks and those
// processes' exits and execs (kqueue EVFILT_PROC). Each such event starts
// a short run of looks at the shell spread over the half second in which
// a program starts or a shell takes its terminal back, and each look that
// finds something new is reported with what it read (a procinfo.Front).
//
// A look reads what a tab name is made of: the terminal's foreground
// process group, its leader and, for a leader that only wraps the real
// program (`sh -c`), the leader's newest child, with their command names,
// command lines and directories, and the shell's own. So it sees a
// program start or end, a wrapper move on to its next command, `exec
// prog` replace the shell, a nested shell (bash in bash, nix develop, su)
// change directory, and a program change its own.
//
// A deep look at every shell once a second catches what no event
// precedes (a program suspended with Ctrl-Z, the last process of a
// pipeline ending, a program's own chdir). A shell whose events the
// kernel refuses (its inotify instances or watches used up) is watched by
// quick looks instead, a pread of a few stat files on a bounded schedule
// shared by all such shells; Watcher.Blind says which limit to raise.
//
// An InputWatch is the bare events without the looks: it tells when a
// process reads its terminal, and when it ends, and reads nothing of it
// (Linux only). The daemon follows herdr's clients with one, for the
// moment a person comes back to the terminal showing herdr.
package procwatch
