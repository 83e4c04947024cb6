// Package doctor checks a setup piece by piece for status: herdr on its
// socket, the runtime folder and what a running daemon keeps there (its
// lock, its nudge socket, its health and reload records), the config file
// as run would build it, the state file, the shell hooks and the herdr
// plugin. Each Check says what it found and, for a problem, the command
// that fixes it. A check never writes: it reads a state file without
// taking it over, looks at a runtime folder run would make without
// making it, and reads files that could block (a FIFO at a path) in ways
// that cannot.
//
// # Who calls what
//
// Checks belongs to the goroutine that calls it, a command; it leaves
// nothing running.
package doctor
