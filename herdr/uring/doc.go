// Package uring sends one request on a new Unix stream connection with a
// single io_uring submission: a CONNECT linked (IOSQE_IO_LINK) to a SEND,
// submitted by the same io_uring_enter call that waits for both
// completions. The request's bytes are then in the socket before the
// call returns to user space, so a server that looks for them once,
// right after accepting, finds them there whatever the scheduler does
// in between. herdr is such a server: a connection whose request line is
// not there at its first look waits herdr's 100 ms read poll
// (docs/herdr.md §2).
//
// Waiting in the same call is the point. The linked SEND runs as task
// work, and task work runs before io_uring_enter returns only when the
// call also waits for completions; submitted alone, the SEND runs on the
// way back to user space, where the scheduler may run the server first.
//
// Linux only, written against the kernel's ABI with golang.org/x/sys/unix
// (no cgo). A Pool holds a few small rings, made on demand and reused; a
// Ring serves one request at a time. Open says why a kernel cannot be
// used (a *RefusedError: io_uring missing, refused by seccomp, a
// security module or kernel.io_uring_disabled, or without CONNECT,
// SEND or the waiting timeout), and callers then keep to a plain
// connect and write.
package uring
