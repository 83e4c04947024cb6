package seccomp

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// auditArch is the AUDIT_ARCH_* value of the architectures whose system
// call numbers the filter knows.
var auditArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64,
	"arm64": unix.AUDIT_ARCH_AARCH64,
}

// Offsets into struct seccomp_data.
const (
	dataNr   = 0
	dataArch = 4
)

// RefuseIOURing makes io_uring_setup fail with errno in this process and
// every process it starts from now on; other system calls are untouched.
func RefuseIOURing(errno unix.Errno) error {
	arch, ok := auditArch[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("seccomp: no system call numbers known for %s", runtime.GOARCH)
	}
	filter := []unix.SockFilter{
		bpfStmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, dataArch),
		bpfJump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, arch, 0, 3), // another arch: allow
		bpfStmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, dataNr),
		bpfJump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.SYS_IO_URING_SETUP, 0, 1),
		bpfStmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ERRNO|uint32(errno)&unix.SECCOMP_RET_DATA),
		bpfStmt(unix.BPF_RET|unix.BPF_K, unix.SECCOMP_RET_ALLOW),
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp: PR_SET_NO_NEW_PRIVS: %w", err)
	}
	// TSYNC: the Go runtime runs on several threads; each needs the filter.
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if e != 0 {
		return fmt.Errorf("seccomp: SECCOMP_SET_MODE_FILTER: %w", e)
	}
	return nil
}

func bpfStmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }

func bpfJump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}
