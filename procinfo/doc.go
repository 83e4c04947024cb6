// Package procinfo answers "what program runs in this pane?" from herdr's
// pane.process_info payload. The answer is a short display name: the
// foreground group's leader, named from its argv (comm is truncated at 15
// characters), seen through launchers (sudo, env, nix run, npx, uv run, ...)
// and interpreters (python3 -m http.server -> http.server), with user
// rewrites applied last. Everything is pure except the Inspector seam, which
// reads local processes when herdr's answer is not enough (argv missing, or
// the leader is only a wrapper such as `sh -c`) and reads a shell's
// foreground process group cheaply, so the daemon can notice a program start
// or exit without a socket call (herdr's pane revision does not move then).
//
// Agents are not this package's business: the caller drops {proc} for a
// pane where herdr detected an agent.
package procinfo
