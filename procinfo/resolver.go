package procinfo

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// DefaultShells are the programs that count as "the shell is in front".
func DefaultShells() []string {
	return []string{"fish", "bash", "zsh", "sh", "dash", "ksh", "csh", "tcsh", "nu", "elvish", "xonsh", "login"}
}

// RewriteSpec is one regex rule from the config file, applied to the final
// program name: Match is a Go regexp, Replace may use $1 and ${name}.
type RewriteSpec struct {
	Match   string `toml:"match"`
	Replace string `toml:"replace"`
}

// Options configure a Resolver.
type Options struct {
	// Shells replaces DefaultShells when non-nil.
	Shells []string
	// Aliases map a final name to another, exactly, after the rewrites
	// (--alias "nvim=vim"). An empty value hides the program.
	Aliases map[string]string
	// Rewrites apply in order, each to the result of the one before, to
	// every name they match. A rule whose result is "" hides the program.
	Rewrites []RewriteSpec
}

// Program is what runs in front of a pane.
type Program struct {
	Name string // "" = the shell is in front, or nothing could be told
	// Argv is the command line the name came from, after looking through
	// launchers. It shares memory with the ProcessInfo it came from: do not
	// modify it.
	Argv []string
	PID  int // the process the name came from
	PGID int // the foreground group it came from; the daemon caches it to notice changes
	// Shell says the pane's own shell leads the foreground group and is
	// the shell still (not one that ran `exec prog`): it is at its prompt
	// (or running a builtin), in the directory herdr calls the pane's
	// cwd. A shell leading a group of its own is another one
	// (nested, or the shell's fork before it execs a program): Name is ""
	// for both, Shell true only for the first.
	Shell bool
	Why   string
	// Args is the command line for {args}: Argv with its first word shown
	// by the name it goes by (basename, launcher's package name, alias).
	Args string
	// Dest is the destination of a remote shell (ssh, autossh, mosh, et),
	// as typed; Remote names the program it runs there ("" for a login
	// shell). {proc} shows them as @host[:remote].
	Dest, Remote string
}

// Resolver names programs. It is immutable after New and safe for
// concurrent use when its Inspector is.
type Resolver struct {
	shells   map[string]bool
	aliases  map[string]string
	rewrites []rewrite
	in       Inspector
}

type rewrite struct {
	re      *regexp.Regexp
	replace string
	why     string
}

// New checks opts and builds a Resolver. in may be nil: then only what
// herdr reported is used.
func New(opts Options, in Inspector) (*Resolver, error) {
	r := &Resolver{shells: map[string]bool{}, aliases: maps.Clone(opts.Aliases), in: in}
	shells := opts.Shells
	if shells == nil {
		shells = DefaultShells()
	}
	for i, s := range shells {
		if strings.TrimSpace(s) == "" {
			return nil, fmt.Errorf("shells: entry %d is empty", i+1)
		}
		name, _ := cleanName(s)
		r.shells[name] = true
	}
	for k := range opts.Aliases {
		if strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("alias: empty program name (maps to %q)", opts.Aliases[k])
		}
	}
	for i, spec := range opts.Rewrites {
		if spec.Match == "" {
			return nil, &RewriteError{Index: i + 1, Err: errors.New("empty match")}
		}
		re, err := regexp.Compile(spec.Match)
		if err != nil {
			return nil, &RewriteError{Index: i + 1, Err: fmt.Errorf("bad match %q: %w", spec.Match, err)}
		}
		r.rewrites = append(r.rewrites, rewrite{re: re, replace: spec.Replace,
			why: "rewrite rule " + strconv.Itoa(i+1) + " (" + spec.Match + ")"})
	}
	return r, nil
}

// RewriteError is a [[rewrites]] rule that does not compile; Index lets the
// config file point at the rule's own table without parsing this message.
type RewriteError struct {
	Index int // 1-based position in Options.Rewrites
	Err   error
}

func (e *RewriteError) Error() string { return fmt.Sprintf("rewrite rule %d: %v", e.Index, e.Err) }

func (e *RewriteError) Unwrap() error { return e.Err }

// ParseAliases reads an --alias value: comma-separated from=to pairs,
// blanks around names ignored. "" is no aliases.
func ParseAliases(spec string) (map[string]string, error) {
	aliases := map[string]string{}
	if strings.TrimSpace(spec) == "" {
		return aliases, nil
	}
	for i, entry := range strings.Split(spec, ",") {
		from, to, ok := strings.Cut(entry, "=")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		switch {
		case strings.TrimSpace(entry) == "":
			return nil, fmt.Errorf("alias %q: entry %d is empty", spec, i+1)
		case !ok:
			return nil, fmt.Errorf("alias %q: entry %d %q has no '=' (want from=to)", spec, i+1, entry)
		case from == "":
			return nil, fmt.Errorf("alias %q: entry %d %q has no program name before '='", spec, i+1, entry)
		}
		if _, dup := aliases[from]; dup {
			return nil, fmt.Errorf("alias %q: entry %d maps %q a second time", spec, i+1, from)
		}
		aliases[from] = to
	}
	return aliases, nil
}

// IsShell reports whether name (an argv[0], a path or a comm) is one of the
// configured shells.
func (r *Resolver) IsShell(name string) bool {
	n, _ := cleanName(name)
	return r.shells[n]
}

// maxDescent bounds the walk down a wrapper's children.
const maxDescent = 4

// Program names the program in front of a pane. It never fails: when
// nothing better is known it falls back to what herdr said, and when even
// that is missing the Name is "" and Why says why.
func (r *Resolver) Program(pi herdr.ProcessInfo) Program {
	p := Program{PGID: pi.ForegroundPGID}
	switch {
	case pi.ForegroundPGID == 0:
		p.Why = "no foreground process group"
		return p
	case pi.ForegroundPGID == pi.ShellPID && paneNotStarted(pi):
		p.PID = pi.ShellPID
		p.Why = "the pane's process (pid " + strconv.Itoa(pi.ShellPID) + ") is still herdr's, before it starts the pane's shell"
		return p
	case pi.ForegroundPGID == pi.ShellPID && r.shellLeads(pi):
		return shellInFront(p, pi.ShellPID)
	}
	argv, why, fromComm := r.frontArgv(pi, &p)
	if len(argv) == 0 {
		return p
	}
	return r.finish(p, r.lookThrough(pi, p.PID, argv, why), fromComm)
}

// shellLeads says whether the process at the pane's shell pid, which
// leads the foreground group, is the pane's shell (paneShell): one that
// ran `exec prog` is prog now, under the same pid. Without herdr's word
// on the process, it is the shell.
func (r *Resolver) shellLeads(pi herdr.ProcessInfo) bool {
	for _, proc := range pi.ForegroundProcesses {
		if proc.PID == pi.ShellPID {
			argv := proc.Argv
			if len(argv) == 0 {
				argv = strings.Fields(proc.Cmdline)
			}
			return r.paneShell(argv, proc.Name, func() string { return r.localShellVar(proc.PID, proc.Name) })
		}
	}
	return true
}

// paneNotStarted says whether the pane's own process is still herdr: herdr
// forks it, makes it lead the pane's foreground group, then execs the
// pane's shell, and a request answered in between sees herdr there.
func paneNotStarted(pi herdr.ProcessInfo) bool {
	for _, proc := range pi.ForegroundProcesses {
		if proc.PID != pi.ShellPID {
			continue
		}
		argv := proc.Argv
		if len(argv) == 0 {
			argv = strings.Fields(proc.Cmdline)
		}
		argv0 := ""
		if len(argv) > 0 {
			argv0 = argv[0]
		}
		return isHerdr(argv0, proc.Name)
	}
	return false
}

// paneShell says whether the process at a pane's shell pid, running
// argv (nil when not known) under the command name comm, is the pane's
// shell. herdr started it there, whatever its name, and it stops being
// the shell only by an exec (`exec prog`), which keeps the pid and
// replaces the program. What tells of an exec is the $SHELL the process
// was started with: herdr starts a pane's shell as $SHELL names it (or,
// with its own setting, a shell of its choosing), and a shell that execs
// a program hands it its own $SHELL. So a process there that runs neither
// a listed shell nor the program its $SHELL names has exec'd one. Where
// its $SHELL is not known (unset, or unreadable: herdr's answer about a
// process that is not this machine's) nothing tells of an exec, and it is
// the shell. envShell reads the $SHELL ("" when not known); it is called
// only for a process that runs no listed shell.
func (r *Resolver) paneShell(argv []string, comm string, envShell func() string) bool {
	if len(argv) == 0 && comm == "" {
		return true // nothing tells what it runs
	}
	if r.runsListedShell(argv, comm) {
		return true
	}
	sh := envShell()
	return sh == "" || runsProgram(argv, comm, sh)
}

// runsListedShell says whether argv (or, without it, comm) runs a listed
// shell: by its first word, or the program it names through launchers
// (xonsh runs as python).
func (r *Resolver) runsListedShell(argv []string, comm string) bool {
	if len(argv) > 0 {
		return r.IsShell(argv[0]) || r.IsShell(r.resolveArgv(argv, nil).name)
	}
	return r.IsShell(comm)
}

// runsProgram says whether a process running argv under the command name
// comm runs the program at path: by argv's first word or comm, each by
// its display name (a login shell's "-zsh", a NixOS ".zsh-wrapped"), comm
// cut at the kernel's 15 bytes.
func runsProgram(argv []string, comm, path string) bool {
	want, _ := cleanName(path)
	if want == "" {
		return false
	}
	if len(argv) > 0 {
		if first, _ := cleanName(argv[0]); first == want {
			return true
		}
	}
	if comm == "" {
		return false
	}
	if c, _ := cleanName(comm); c == want {
		return true
	}
	return len(comm) == maxComm && len(want) > maxComm && want[:maxComm] == comm
}

// maxComm is the length of a command name the kernel cuts (Linux's
// TASK_COMM_LEN less its NUL).
const maxComm = 15

// shellVarReader is an Inspector that reads the $SHELL a local process
// was started with (Local's, where the kernel shows environments).
type shellVarReader interface {
	// ShellVar reads pid's command name and the value of SHELL in the
	// environment it was started with ("" when unset).
	ShellVar(pid int) (comm, shell string, err error)
}

// localShellVar is the $SHELL of pid, a process herdr names with the
// command name comm, read through the Inspector: "" when it cannot read
// it, or when the process it finds under pid has another command name
// (herdr's pids are of another machine or pid namespace).
func (r *Resolver) localShellVar(pid int, comm string) string {
	sr, ok := r.in.(shellVarReader)
	if !ok || pid <= 0 || comm == "" {
		return ""
	}
	localComm, sh, err := sr.ShellVar(pid)
	if err != nil || localComm != comm {
		return ""
	}
	return sh
}

// shellInFront is p for the pane's own shell at its prompt.
func shellInFront(p Program, shellPID int) Program {
	p.PID, p.Shell = shellPID, true
	p.Why = "the shell (pid " + strconv.Itoa(shellPID) + ") is in front"
	return p
}

// finish names res, the command line looked through, as a Program: a
// shell is no program, rewrites and aliases apply, and a remote shell's
// destination is split out. fromComm: the name came from a command name,
// not a command line.
func (r *Resolver) finish(p Program, res resolved, fromComm bool) Program {
	p.PID, p.Argv = res.pid, res.argv
	if fromComm {
		p.Argv = nil
	}
	name := res.name
	if r.IsShell(name) {
		p.Why = strings.Join(append(res.why, name+" is a shell"), "; ")
		return p
	}
	name, why := r.rename(name, res.why)
	p.Name = name
	p.Why = strings.Join(why, "; ")
	if name == "" {
		return p
	}
	first := res.first
	if first == res.name {
		first = name // rewritten or aliased like the name
	}
	if fromComm {
		p.Args = name
	} else {
		p.Args = joinArgs(first, res.argv)
	}
	if _, remote := remoteSpec(res.name); remote && !fromComm {
		p.Dest, p.Remote = r.remote(res.argv)
	}
	return p
}

// frontArgv finds the command line of the foreground group's leader: the
// argv herdr reported, its cmdline split on blanks, a local look, and last
// the leader's comm (fromComm). It sets p.PID to the leader. No argv means
// nothing tells, and p.Why says why.
func (r *Resolver) frontArgv(pi herdr.ProcessInfo, p *Program) (argv, why []string, fromComm bool) {
	leader := leaderOf(pi)
	if leader != nil {
		p.PID = leader.PID
		argv = leader.Argv
		why = append(why, "argv of pid "+strconv.Itoa(leader.PID))
		if len(argv) == 0 && leader.Cmdline != "" {
			argv = strings.Fields(leader.Cmdline)
			why[0] = "cmdline of pid " + strconv.Itoa(leader.PID)
		}
	} else {
		p.PID = pi.ForegroundPGID
	}
	if len(argv) > 0 {
		return argv, why, false
	}
	var reason string
	argv, reason = r.localArgv(p.PID)
	why = append(why[:0], reason)
	if len(argv) > 0 {
		return argv, why, false
	}
	if leader == nil || leader.Name == "" {
		p.Why = reason
		return nil, why, false
	}
	// comm is truncated at 15 characters, but it is a name.
	return []string{leader.Name}, append(why, "comm "+strconv.Quote(leader.Name)), true
}

// lookThrough names argv of pid, looking through launchers and, when pid
// only wraps the real program, into its children or its group.
func (r *Resolver) lookThrough(pi herdr.ProcessInfo, pid int, argv, why []string) resolved {
	res := r.resolveArgv(argv, why)
	res.pid = pid
	if res.wrapper {
		if deeper, ok := r.descend(pid, res.why); ok {
			res = deeper
		} else if member, ok := r.member(pi, pid, res.why); ok {
			res = member
		} else {
			res.why = append(res.why, "named from its command line")
		}
	}
	return res
}

// rename applies the configured rewrites, then an alias, to name.
func (r *Resolver) rename(name string, why []string) (string, []string) {
	for _, rw := range r.rewrites {
		if rw.re.MatchString(name) {
			name = rw.re.ReplaceAllString(name, rw.replace)
			why = append(why, rw.why)
		}
	}
	if to, ok := r.aliases[name]; ok {
		why = append(why, "alias "+name+"="+to)
		name = to
	}
	return name, why
}

// remote splits a remote-shell command line (ssh and the like) into its
// destination and the program it runs there, "" for a shell.
func (r *Resolver) remote(argv []string) (dest, program string) {
	dest, cmd := remoteCommand(argv)
	if len(cmd) > 0 {
		if rn := r.resolveArgv(cmd, nil).name; !r.IsShell(rn) {
			program = rn
		}
	}
	return dest, program
}

// maxArgs bounds {args} in bytes: a tab label shows a few dozen columns,
// and an argv can be megabytes that every pass would otherwise sanitise.
const maxArgs = 1024

// joinArgs renders a command line for {args}: first, then argv[1:], each
// word with blanks quoted so the words stay apart; cut after maxArgs bytes
// on a rune boundary.
func joinArgs(first string, argv []string) string {
	var b strings.Builder
	b.WriteString(first)
	for _, a := range argv[min(1, len(argv)):] {
		if b.Len() >= maxArgs {
			break
		}
		b.WriteByte(' ')
		if a == "" || strings.ContainsAny(a, " \t\n'\"") {
			b.WriteString(strconv.Quote(a))
			continue
		}
		b.WriteString(a)
	}
	s := b.String()
	if len(s) > maxArgs {
		cut := maxArgs
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// leaderOf finds the group leader among the foreground processes. When it
// has gone (the first stage of a pipeline exited), the lowest pid stands in.
func leaderOf(pi herdr.ProcessInfo) *herdr.Process {
	for i := range pi.ForegroundProcesses {
		if pi.ForegroundProcesses[i].PID == pi.ForegroundPGID {
			return &pi.ForegroundProcesses[i]
		}
	}
	if len(pi.ForegroundProcesses) > 0 {
		return &pi.ForegroundProcesses[0]
	}
	return nil
}

// localArgv reads a pid's argv through the Inspector when herdr gave none.
func (r *Resolver) localArgv(pid int) ([]string, string) {
	if r.in == nil {
		return nil, "no argv for pid " + strconv.Itoa(pid) + " and no local inspector"
	}
	proc, err := r.in.Process(pid)
	if err != nil {
		return nil, "no argv for pid " + strconv.Itoa(pid) + ": " + err.Error()
	}
	if len(proc.Argv) == 0 {
		return nil, "no argv for pid " + strconv.Itoa(pid) + ", even locally"
	}
	return proc.Argv, "argv of pid " + strconv.Itoa(pid) + " read locally"
}

// resolved is the outcome of looking through one command line.
type resolved struct {
	name  string
	first string // how argv[0] is shown: its cleaned name or a launcher's better name
	argv  []string
	pid   int
	why   []string
	// wrapper: the process only wraps the real program (a shell running
	// -c, a shell running a NixOS -wrapped script), so its children know
	// better than its command line.
	wrapper bool
}

// maxHops bounds launcher chains (sudo env nice nix ... is finite, but a
// crafted command line must not loop).
const maxHops = 16

// resolveArgv looks through launchers and interpreters in argv.
func (r *Resolver) resolveArgv(argv []string, why []string) resolved {
	res := resolved{argv: argv}
	var override string
	fromShell := false
	for hops := 0; len(argv) > 0; hops++ {
		raw := argv[0]
		if override != "" {
			raw = override
		}
		name, wrapped := cleanName(raw)
		res.name, res.first, res.argv = name, name, argv
		if wrapped && fromShell {
			res.wrapper = true
		}
		h := handlerFor(name)
		if h == nil || hops == maxHops {
			break
		}
		o := h(name, argv[1:])
		if o.why != "" {
			why = append(why, o.why)
		}
		switch o.kind {
		case hopStop:
			if o.name != "" {
				res.name = o.name
			}
			res.why = why
			return res
		case hopShellC:
			res.wrapper = true
			words := splitCommand(o.cmd)
			if len(words) == 0 {
				res.why = why
				return res
			}
			argv, override, fromShell = words, "", false
		case hopNext:
			argv, override, fromShell = o.next, o.nextName, o.script
		}
	}
	res.why = why
	return res
}

// descend follows a wrapper's only child, and that child's only child
// while it is a wrapper too, through the Inspector.
func (r *Resolver) descend(pid int, why []string) (resolved, bool) {
	if r.in == nil {
		return resolved{}, false
	}
	var best resolved
	found := false
	for depth := 0; depth < maxDescent; depth++ {
		kids, err := r.in.Children(pid)
		if err != nil || len(kids) != 1 {
			break
		}
		proc, err := r.in.Process(kids[0])
		if err != nil || len(proc.Argv) == 0 {
			break
		}
		pid = kids[0]
		step := append(slices.Clip(why), "only child pid "+strconv.Itoa(pid)+" of a wrapper, read locally")
		best = r.resolveArgv(proc.Argv, step)
		best.pid, found = pid, true
		if !best.wrapper {
			break
		}
		why = best.why
	}
	return best, found
}

// member picks the real program from the other members of the foreground
// group when the Inspector cannot help: herdr lists them but not their
// parents, so only an unambiguous answer (one distinct non-wrapper,
// non-shell name) is taken.
func (r *Resolver) member(pi herdr.ProcessInfo, leader int, why []string) (resolved, bool) {
	var pick resolved
	found := false
	for i := range pi.ForegroundProcesses {
		m := &pi.ForegroundProcesses[i]
		if m.PID == leader || len(m.Argv) == 0 {
			continue
		}
		step := append(slices.Clip(why), "group member pid "+strconv.Itoa(m.PID))
		res := r.resolveArgv(m.Argv, step)
		if res.wrapper || r.IsShell(res.name) {
			continue
		}
		if found && res.name != pick.name {
			return resolved{}, false
		}
		if !found {
			res.pid = m.PID
			pick, found = res, true
		}
	}
	return pick, found
}
