// Package seccomp refuses io_uring to a process the way a container
// runtime's seccomp profile does, so that tests can prove the fallback
// of package herdr against a real refusal: a BPF filter, installed with
// no_new_privs on every thread of the calling process, that answers
// io_uring_setup with an errno. The filter is inherited across fork and
// execve and cannot be removed: call it in a process of its own (a
// re-executed test binary, or a wrapper that then execs the program
// under test).
package seccomp
