package setup

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/plugintie"
)

// minPoll is the shortest --poll: below it a typo (1ns, 1us) would turn the
// daemon into a busy loop of full passes against herdr.
const minPoll = 10 * time.Millisecond

// DaemonFlags are run's own: the polls, the debounce, --settle and the
// local watch. Where --local-watch's flag, variable and config key meet
// is kong's to resolve, once, here: status reads it from options built
// as run builds them.
type DaemonFlags struct {
	Poll       time.Duration `help:"Full pass interval besides events; 0 for events only." default:"3s"`
	RestPoll   time.Duration `help:"Full pass interval instead of --poll while --local-watch follows every tab, which leaves the poll only what nothing announces; 0: none then." default:"30s"`
	AgentPoll  time.Duration `help:"Read the session this often for agents' statuses while one may change unannounced (an agent works, read input in the last 5s, or runs where the local watch cannot see its terminal) and no herdr plugin event hook reports them (herdr pushes them to nothing else); 0: never." default:"1s"`
	LocalWatch bool          `help:"Learn from the kernel when a program starts or exits or a shell changes directory in a pane on this machine, so its tab is renamed at once without hooks (and the full poll rests, --rest-poll)." default:"true" negatable:""`
	Debounce   time.Duration `help:"Events after the first one within this long are coalesced into one more pass." default:"400ms"`
	Settle     time.Duration `help:"Wait this long before naming a new program (0: at once); calm over speed." default:"0s"`
	// Warm is accepted, and ignored with a warning, for the services and
	// config files that still set it: the connections it kept open cost
	// herdr more than the few renames a read poll delays.
	Warm time.Duration `hidden:"" help:"No longer used."`
}

// Daemon adds run's flags to options built from the naming flags, and
// ties the daemon to the herdr plugin whose startup hook runs it
// (plugintie.FromEnv). Each error is a usage error on one line.
func (f *DaemonFlags) Daemon(opt daemon.Options, env Env) (daemon.Options, error) {
	if f.Poll < 0 || f.RestPoll < 0 || f.Debounce < 0 || f.AgentPoll < 0 {
		return opt, errors.New("--poll, --rest-poll, --agent-poll and --debounce must not be negative")
	}
	if f.Settle < 0 {
		return opt, fmt.Errorf("--settle %v: must not be negative (0 names a new program at once)", f.Settle)
	}
	if f.Warm != 0 {
		opt.Log.Warn("--warm (HERDRTABRENAMER_WARM, config key warm) is no longer used: renames go out on fresh connections; remove it")
	}
	if f.Poll > 0 && f.Poll < minPoll {
		return opt, fmt.Errorf("--poll %v is too short: use %v or more, or 0 for events only", f.Poll, minPoll)
	}
	if f.RestPoll > 0 && f.RestPoll < minPoll {
		return opt, fmt.Errorf("--rest-poll %v is too short: use %v or more, or 0 for none", f.RestPoll, minPoll)
	}
	if f.AgentPoll > 0 && f.AgentPoll < minPoll {
		return opt, fmt.Errorf("--agent-poll %v is too short: use %v or more, or 0 for never", f.AgentPoll, minPoll)
	}
	opt.Naming.Settle, opt.Naming.LocalWatch = f.Settle, f.LocalWatch
	opt.Poll, opt.AgentPoll, opt.Debounce = f.Poll, f.AgentPoll, f.Debounce
	opt.RestPoll = f.RestPoll
	opt.Plugin = plugintie.FromEnv(env.getenv)
	return opt, nil
}
