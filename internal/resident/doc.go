// Package resident hands back what a long-running process used only
// while it started: the heap's free pages (debug.FreeOSMemory), and on
// Linux the mappings of its program file's pages. The kernel maps a
// program's pages 64 KB at a time around each one touched (fault-around),
// so start-up code that never runs again (flag parsing, configuration,
// the first passes) stays in the resident set for the process's life.
// Dropping the mappings (MADV_DONTNEED on read-only file mappings that
// hold no private copies) costs one system call; the pages stay in the
// page cache, and the ones the process still uses are mapped again on
// their next touch, a minor fault each.
package resident
