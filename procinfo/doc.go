// Package procinfo answers "what program runs in this pane?" from herdr's
// pane.process_info payload, or from one look at a local shell's
// terminal. The answer is a short display name: the foreground group's
// leader, named from its argv (comm is truncated at 15 characters), seen
// through launchers (sudo, env, nix run, npx, uv run, ...) and
// interpreters (python3 -m http.server -> http.server), with user
// rewrites applied last. Resolver.Program names herdr's answer, and reads
// local processes through the Inspector seam only when that answer is not
// enough (argv missing, or the leader is only a wrapper such as `sh -c`);
// Resolver.FromFront names a Front with the same rules and reads nothing.
//
// The rest reads this machine's processes: a Front is one look at a
// shell's terminal (its foreground group, that group's leader and a
// wrapper's newest child, with their command lines and directories), read
// once by ReadFront or again and again, cheaply, by a FrontReader (a
// watch); ProveLocal says whether a shell herdr names is proven to be a
// process here, from the process serving herdr's socket (SocketPeer);
// HerdrClients lists the processes that may be herdr's clients of it.
//
// The process at a pane's shell pid is the pane's shell, whatever its
// name, unless it exec'd a program: one that runs neither a listed shell
// nor what the $SHELL it was started with names (Resolver.paneShell).
//
// Agents are not this package's business: the caller drops {proc} for a
// pane where herdr detected an agent.
package procinfo
