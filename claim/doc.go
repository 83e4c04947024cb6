// Package claim makes one daemon the only one for a herdr server, and
// tells one herdr server process from another behind the same socket.
//
// The claim is a lock file in the runtime folder, keyed by the socket's
// identity, holding "pid N since TIME start S" while its daemon runs (S:
// the process's start as the kernel keeps it), and on Linux an abstract
// socket (a beacon) that a wiped runtime folder cannot hide. run takes it (Take) and follows the socket (Follow); restore
// takes it over (TakeOver), stopping a running daemon; status reads who
// holds it (Running), believing a holder only while its pid's process
// started at the moment the line records.
//
// A herdr restarted without its session counts its ids from 1 again, so
// the memory of the server before must not apply to the tabs that reuse
// them. Identify reads what tells server processes apart: the socket's
// peer (herdr itself, or a forwarder like ssh -L or socat, which outlives
// the herdr behind it) and the terminal ids herdr gives panes, new for
// every pane a server starts or restores, which no forwarder changes.
// Check compares them with what the memory says and keeps only what a
// restored session still shows.
//
// A Claim belongs to the goroutine that took it; the functions are safe
// from any.
package claim
