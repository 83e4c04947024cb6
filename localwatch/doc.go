// Package localwatch is this machine's word on panes' shells: which
// shells herdr names run here (proven once per shell and herdr server,
// procinfo.ProveLocal), the registry of those each pass found (Found,
// Local), and, where the platform has one, the kernel's watch of them
// (package procwatch): it says when a program starts or exits or a shell
// changes directory, so a shell with no hooks that sets no title still
// names its tab at once, and its last look at a shell's terminal stands
// in for a read of the pass's own. A title change a pane reports is
// weighed here too (TitleHint): for a shell here, one look at its
// terminal tells whether a program started.
//
// # Who calls what
//
// Shells and its Watch belong to one goroutine, the daemon's loop (a pass
// runs on it): SetServer, Prove, Found, Local, ServerHere, TitleHint, Probe and
// every method of Watch run there. Front, the watch's last look, is safe
// from any goroutine; the function Probe returns reads only what it
// captured, and runs on a preexec wait's goroutine.
package localwatch
