package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/quote"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/setup"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Check is one line of the report: what was looked at, what was found,
// and for a problem the command that fixes it.
type Check struct {
	Name, Found, Fix string
	OK               bool
}

// Env is what the checks look at besides the socket: the process's
// environment and home directory, the config file Main loaded, --state,
// and the daemon's options as run would build them.
type Env struct {
	Lookup func(key string) (string, bool)
	Home   func() (string, error)
	Config *config.File
	State  string // --state
	// Run is the daemon's options as run builds them from the same
	// config file, environment and global flags, or the error run stops
	// with.
	Run func() (daemon.Options, error)
}

func (e Env) getenv(key string) string {
	v, _ := e.Lookup(key)
	return v
}

// Checks looks at the setup piece by piece, for the herdr at --socket
// (socketFlag): herdr, the runtime folder and what a running daemon
// keeps there, the config file, the state file, the shell hooks and the
// herdr plugin.
func Checks(socketFlag string, env Env) []Check {
	run, runErr := env.Run()
	var out []Check
	sock, err := herdr.ResolveSocketPath(socketFlag, env.Lookup)
	if err != nil {
		out = append(out, Check{Name: "herdr", Found: err.Error(), Fix: "start herdr, or pass --socket PATH"})
	} else {
		out = append(out, herdrCheck(sock), Check{Name: "requests", OK: true, Found: herdr.New(sock).RequestPath().String()})
		out = append(out, daemonChecks(sock)...)
	}
	out = append(out, configCheck(env.Config, runErr))
	if sock != "" {
		out = append(out, stateCheck(env.State, sock))
	}
	out = append(out, hooksCheck(env, localWatchOn(run, runErr)), pluginCheck(env))
	return out
}

// localWatchOn says whether a daemon run would start follows local
// shells through the kernel: where the platform has the watch, as run's
// own options say (--local-watch, its variable and config key, as kong
// resolves them for run). Options run refuses say nothing of it: the
// default, on.
func localWatchOn(run daemon.Options, err error) bool {
	return procwatch.Supported() && (err != nil || run.Naming.LocalWatch)
}

func herdrCheck(sock string) Check {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	pong, err := herdr.New(sock, herdr.WithTimeout(2*time.Second)).Ping(ctx)
	if err != nil {
		if errors.Is(err, herdr.ErrNotRunning) {
			return Check{Name: "herdr", Found: "not running at " + sock,
				Fix: "start herdr; if it runs elsewhere, pass --socket PATH or set HERDR_SOCKET_PATH"}
		}
		return Check{Name: "herdr", Found: fmt.Sprintf("%s: %v", sock, err), Fix: "Check that " + sock + " is herdr's API socket"}
	}
	return Check{Name: "herdr", OK: true, Found: fmt.Sprintf("%s, protocol %d, socket %s", pong.Version, pong.Protocol, sock)}
}

// daemonChecks are the runtime folder, checked as run checks it, and what
// a running daemon keeps there: its lock, its nudge socket and the record
// of its last reload. A folder run would refuse ends the list: nothing in
// it is the daemon's, and no daemon can start until it is fixed.
func daemonChecks(sock string) []Check {
	rt, usable := runtimeCheck()
	if !usable {
		return []Check{rt}
	}
	d, pid, since := daemonCheck(sock)
	out := []Check{rt, d, nudgeCheck(sock)}
	if pid != 0 {
		out = append(out, healthChecks(sock, pid)...)
		out = append(out, reloadCheck(sock, pid, since))
	}
	return out
}

// troubleFix is what to do about each thing a daemon can fail to do.
var troubleFix = map[string]string{
	rundir.TroubleState:     "make the state file's folder writable (--state, or $XDG_STATE_HOME/herdrtabrenamer): the daemon renames nothing it cannot record",
	rundir.TroubleSubscribe: "see the daemon's log for herdr's answer; restarting herdr or the daemon subscribes again",
	rundir.TroubleRename:    "see the daemon's log for herdr's answer",
	rundir.TroubleSidebar: "list fewer tokens in sidebar-tokens, or have the other tool clear some of its own on that pane " +
		"(herdr pane list shows them); the daemon reports again as soon as either changes",
	rundir.TroubleSessionWatch: "raise fs.inotify.max_user_instances and max_user_watches (sysctl), then restart the daemon; " +
		"meanwhile the daemon looks at the session files twice a second",
	rundir.TroubleLocalWatch: "raise the limit named above as root (sysctl -w, and a file in /etc/sysctl.d to keep it); " +
		"the daemon takes the kernel's events up by itself; meanwhile it looks at those shells a few times a second",
}

// healthChecks reads what the running daemon pid recorded it cannot do
// (rundir.Health): a FIX line for each. A record of another process is an
// earlier daemon's, and says nothing.
func healthChecks(sock string, pid int) []Check {
	h, err := rundir.ReadHealth(sock)
	if err != nil || h.PID != pid {
		return nil
	}
	var out []Check
	for _, t := range h.Troubles {
		out = append(out, Check{Name: "daemon",
			Found: fmt.Sprintf("cannot %s, since %s: %s", t.What, t.Since.Format(time.RFC3339), t.Error),
			Fix:   troubleFix[t.What]})
	}
	return out
}

// runtimeCheck looks at the runtime folder with run's own Check
// (rundir.Verify), without making or repairing it: status never writes.
func runtimeCheck() (c Check, usable bool) {
	dir, err := rundir.Path()
	if err != nil {
		return Check{Name: "runtime", Found: err.Error(), Fix: "set XDG_RUNTIME_DIR (or HOME) to a folder of your own, then start the daemon"}, false
	}
	loose, err := rundir.Verify(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Check{Name: "runtime", OK: true, Found: dir + " (not made yet: run makes it)"}, true
	case err != nil:
		return Check{Name: "runtime", Found: err.Error(), Fix: "remove " + quote.POSIX(dir) + " if you did not make it, or set XDG_RUNTIME_DIR to a folder of your own"}, false
	case loose:
		return Check{Name: "runtime", OK: true, Found: dir + " (others may enter: run makes it private)"}, true
	}
	return Check{Name: "runtime", OK: true, Found: dir}, true
}

// daemonCheck reads the single-instance lock file, which the running
// daemon fills with "pid N since TIME" and empties when it stops. pid is
// the running daemon's, 0 when none runs.
func daemonCheck(sock string) (c Check, pid int, since time.Time) {
	lock := claim.InstanceLockPath(sock)
	notRunning := Check{Name: "daemon", Found: "not running for this herdr",
		Fix: "herdrtabrenamer run --apply (or install the plugin or a service: herdrtabrenamer init --help)"}
	// A daemon killed with SIGKILL leaves its line behind, and its pid may
	// be another process's since: believe it only while that process is
	// the one that took the lock.
	h, ok := claim.Running(lock)
	if !ok {
		return notRunning, 0, since
	}
	return Check{Name: "daemon", OK: true, Found: fmt.Sprintf("running, %s (lock %s)", h, lock)}, h.PID, h.Since
}

// reloadCheck reads what the running daemon recorded of its last reload
// (SIGHUP): one it refused leaves it on its old configuration. A record
// of another process, or from before the daemon started, is an earlier
// daemon's.
func reloadCheck(sock string, pid int, since time.Time) Check {
	r, err := rundir.ReadReload(sock)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && (r.PID != pid || r.At.Before(since)):
		return Check{Name: "reload", OK: true, Found: "none since the daemon started"}
	case err != nil:
		return Check{Name: "reload", Found: err.Error(), Fix: fmt.Sprintf("kill -HUP %d (the daemon records its next reload)", pid)}
	case r.Error != "":
		return Check{Name: "reload", Found: fmt.Sprintf("at %s the daemon refused the config and runs on the one before: %s", r.At.Format(time.RFC3339), r.Error),
			Fix: fmt.Sprintf("fix the config (the config line shows what run says), then: kill -HUP %d", pid)}
	}
	return Check{Name: "reload", OK: true, Found: "config reloaded at " + r.At.Format(time.RFC3339)}
}

// nudgeCheck looks at the nudge socket as nudge reaches it (nudge.Probe,
// which sends nothing): a file or a folder at its path fails every nudge.
func nudgeCheck(sock string) Check {
	p, err := rundir.NudgeSocket(sock)
	if err != nil {
		return Check{Name: "nudge", Found: err.Error(), Fix: "set XDG_RUNTIME_DIR"}
	}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Check{Name: "nudge", Found: "no socket at " + p + " (the daemon makes it)", Fix: "herdrtabrenamer run --apply"}
	case err != nil:
		return Check{Name: "nudge", Found: err.Error(), Fix: "Check the runtime folder"}
	case fi.Mode().Type() != os.ModeSocket:
		return Check{Name: "nudge", Found: fmt.Sprintf("%s is %s, not the daemon's socket: every nudge fails", p, safefile.Kind(fi.Mode())),
			Fix: "remove it, then restart the daemon: it makes its socket when it starts"}
	}
	if err := nudge.Probe(p); err != nil {
		return Check{Name: "nudge", Found: err.Error(), Fix: "herdrtabrenamer run --apply (a daemon that runs makes its socket again when restarted)"}
	}
	return Check{Name: "nudge", OK: true, Found: "socket " + p}
}

// configCheck reports the file Main loaded, then what building the whole
// configuration as run does said (runErr): what run refuses, status
// shows, with run's own error.
func configCheck(cf *config.File, runErr error) Check {
	if cf != nil && errors.Is(cf.Broken, os.ErrNotExist) {
		return Check{Name: "config", Found: cf.Broken.Error(), Fix: "create the file, or stop naming it (--config, HERDRTABRENAMER_CONFIG)"}
	}
	if cf != nil && cf.Broken != nil {
		return Check{Name: "config", Found: cf.Broken.Error(), Fix: "fix that line, or start over from README's config example"}
	}
	if runErr != nil {
		return Check{Name: "config", Found: runErr.Error(), Fix: "fix it: run stops with this error"}
	}
	if cf == nil || cf.Path == "" {
		return Check{Name: "config", OK: true, Found: "none (defaults)"}
	}
	if _, err := os.Stat(cf.Path); err != nil {
		return Check{Name: "config", OK: true, Found: "none at " + cf.Path + " (defaults)"}
	}
	return Check{Name: "config", OK: true, Found: fmt.Sprintf("%s parses (%d rules, %d rewrites)", cf.Path, len(cf.Rules), len(cf.Rewrites))}
}

func stateCheck(flag, sock string) Check {
	path, err := setup.StatePath(flag, sock, setup.Env{})
	if err != nil {
		return Check{Name: "state", Found: err.Error(), Fix: "set XDG_STATE_HOME or HOME"}
	}
	if path == "" {
		return Check{Name: "state", OK: true, Found: "none (--state \"\": nothing is remembered)"}
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Check{Name: "state", OK: true, Found: path + " (not written yet)"}
	}
	st, warn := state.Load(path, sock)
	var damaged *state.DamagedError
	switch {
	case errors.As(warn, &damaged):
		return Check{Name: "state", Found: damaged.Error(), Fix: damagedFix(damaged)}
	case warn != nil:
		return Check{Name: "state", Found: warn.Error(), Fix: "use --state auto, or give this herdr server a state file of its own"}
	}
	found := fmt.Sprintf("%s (%d tabs)", path, st.Len(state.Tab))
	if note := serverNote(sock, st); note != "" {
		found += "; " + note
	}
	return Check{Name: "state", OK: true, Found: found}
}

// damagedFix says what a person does about a damaged state file.
func damagedFix(d *state.DamagedError) string {
	rm := "rm " + quote.POSIX(d.Path)
	if d.Newer > 0 {
		return "upgrade herdrtabrenamer, or " + rm + " to start with an empty memory"
	}
	if d.KeptAt != "" {
		return "fix it by hand, or " + rm + " to start with an empty memory (a copy stays at " + d.KeptAt + ")"
	}
	return "fix it by hand, or " + rm + " to start with an empty memory (its locks are then forgotten)"
}

// serverNote says when the state describes another herdr server process
// than the one serving the socket now, or when that cannot be told.
func serverNote(sock string, st *state.State) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	snap, err := herdr.New(sock).Snapshot(ctx)
	if err != nil {
		return ""
	}
	switch v, why := claim.Compare(st.Server(), claim.Identify(ctx, sock, snap)); v {
	case claim.Restarted:
		return "it describes an earlier herdr server (" + why + "): the next pass keeps only the memory of tabs that still show it"
	case claim.Unknown:
		return "whether it describes this herdr server cannot be told (" + why + "): a daemon keeps only the memory of tabs that still show it"
	}
	return ""
}

// hooksCheck reads the marker the shell snippets export.
func hooksCheck(env Env, watched bool) Check {
	return hooksVerdict(env.getenv, os.Getppid(), parentShell, watched)
}

// hooksVerdict judges the marker, "SHELL:PID" as the snippets export it
// (a bare "SHELL" from an older snippet is taken at its word). A shell
// started from a hooked one inherits the marker but not the hooks, so the
// pid must be that of status's parent, when the parent is a shell:
// started through env, time or a script, status cannot tell, and trusts
// the marker. shellName says which shell pid runs, "" for none; getenv
// reads the marker and the rest of the environment. watched: the daemon
// learns of this shell's programs from the kernel, so hooks only make
// renames a few ms sooner.
func hooksVerdict(getenv func(string) string, ppid int, shellName func(pid int) string, watched bool) Check {
	inPane := getenv("HERDR_PANE_ID") != ""
	if marker := getenv("HERDRTABRENAMER_HOOKS"); marker != "" {
		shell, pidText, hasPID := strings.Cut(marker, ":")
		pid, err := strconv.Atoi(pidText)
		if !hasPID || err != nil || pid == ppid {
			return Check{Name: "hooks", OK: true, Found: shell + " hooks loaded in this shell"}
		}
		parent := shellName(ppid)
		if parent == "" {
			return Check{Name: "hooks", OK: true, Found: fmt.Sprintf("%s hooks loaded in shell %d, which started this command", shell, pid)}
		}
		return hooksMissing(fmt.Sprintf("not loaded in this shell (%s, pid %d), only in the %s it was started from (pid %d)", parent, ppid, shell, pid), parent, inPane, watched)
	}
	return hooksMissing("not loaded in this shell", filepath.Base(getenv("SHELL")), inPane, watched)
}

// hooksMissing is the Check for a shell without the hooks, with the line
// that adds them to its rc file; outside a herdr pane, or with the local
// watch, that is no problem.
func hooksMissing(found, shell string, inPane, watched bool) Check {
	fix := "add the line for your shell from herdrtabrenamer init --help to its rc file"
	switch shell {
	case "zsh":
		fix = `echo 'eval "$(herdrtabrenamer init zsh)"' >> ~/.zshrc, then open a new shell`
	case "bash":
		fix = `echo 'eval "$(herdrtabrenamer init bash)"' >> ~/.bashrc, then open a new shell`
	case "fish":
		fix = `echo 'herdrtabrenamer init fish | source' >> ~/.config/fish/config.fish, then open a new shell`
	}
	switch {
	case !inPane:
		// Outside herdr the hooks do nothing, so their absence is no problem.
		return Check{Name: "hooks", OK: true, Found: "not loaded (this shell is not in a herdr pane)"}
	case watched:
		return Check{Name: "hooks", OK: true, Found: found + "; the daemon's local watch renames at once without them (optional: " + fix + ")"}
	}
	return Check{Name: "hooks", Found: found + ": renames wait for the next poll", Fix: fix}
}

// parentShell names the shell running as pid (zsh for a login shell's
// "-zsh" too), or "" when pid runs something else or cannot be read.
func parentShell(pid int) string {
	p, err := procinfo.Local().Process(pid)
	if err != nil {
		return ""
	}
	name := p.Name
	if len(p.Argv) > 0 {
		name = filepath.Base(strings.TrimPrefix(p.Argv[0], "-"))
	}
	switch name {
	case "zsh", "bash", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "nu", "elvish", "xonsh", "pwsh":
		return name
	}
	return ""
}

// pluginID is the id in our herdr-plugin.toml.
const pluginID = "herdrtabrenamer"

// maxRegistrySize bounds herdr's plugins.json, a few hundred bytes a
// plugin.
const maxRegistrySize = 4 << 20

// pluginCheck looks for our plugin in herdr's registry, a JSON array of
// installed plugins at <herdr config dir>/plugins.json
// (src/persist/plugin_registry.rs).
func pluginCheck(env Env) Check {
	dir := env.getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, _ := env.Home()
		dir = filepath.Join(home, ".config")
	}
	reg := filepath.Join(dir, "herdr", "plugins.json")
	var plugins []struct {
		ID      string `json:"plugin_id"`
		Root    string `json:"plugin_root"`
		Enabled bool   `json:"enabled"`
	}
	// A FIFO at the path would block status for as long as no one
	// writes to it.
	b, err := safefile.ReadFile(reg, maxRegistrySize)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return Check{Name: "plugin", Found: fmt.Sprintf("herdr's plugin registry: %v", err), Fix: "rm " + quote.POSIX(reg) + " (herdr writes it again when a plugin is installed or linked)"}
	default:
		if err := json.Unmarshal(b, &plugins); err != nil {
			return Check{Name: "plugin", Found: fmt.Sprintf("herdr's plugin registry %s: %v", reg, err), Fix: "herdr plugin list (herdr rewrites the file)"}
		}
	}
	for _, p := range plugins {
		if p.ID != pluginID {
			continue
		}
		if !p.Enabled {
			return Check{Name: "plugin", Found: "installed in herdr but disabled (" + p.Root + ")", Fix: "herdr plugin enable " + pluginID}
		}
		return Check{Name: "plugin", OK: true, Found: "installed in herdr and enabled (" + p.Root + ")"}
	}
	// The plugin is one way to start the daemon; a service or a hand-run
	// daemon are others, so its absence is information, not a problem.
	return Check{Name: "plugin", OK: true, Found: "not installed (optional: herdr plugin install herdrtabrenamer/herdrtabrenamer)"}
}
