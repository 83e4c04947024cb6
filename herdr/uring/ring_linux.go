package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// entries is the ring's size: a request takes two entries, and a request
// that ran out of time two more to cancel them.
const entries = 4

// RefusedError says why io_uring cannot carry requests in this process:
// the step that failed and the kernel's errno, or the operation the
// kernel lacks.
type RefusedError struct {
	Step    string     // "io_uring_setup", "probe", ...
	Errno   unix.Errno // 0 when the kernel answered but lacks something
	Missing string     // what the kernel lacks: "CONNECT", "SEND", "ASYNC_CANCEL", "a wait timeout"
}

func (e *RefusedError) Error() string {
	if e.Missing != "" {
		return "io_uring lacks " + e.Missing
	}
	return fmt.Sprintf("io_uring refused: %s (%s: %v)", unix.ErrnoName(e.Errno), e.Step, e.Errno)
}

// Unwrap lets errors.Is match the errno.
func (e *RefusedError) Unwrap() error {
	if e.Errno == 0 {
		return nil
	}
	return e.Errno
}

// Short is what a person reads in a status line: "EPERM", "lacks SEND".
func (e *RefusedError) Short() string {
	if e.Missing != "" {
		return "lacks " + e.Missing
	}
	if name := unix.ErrnoName(e.Errno); name != "" {
		return name
	}
	return e.Errno.Error()
}

// Ring is one io_uring instance of entries entries. It serves one
// request at a time (Pool hands it out); the memory it shares with the
// kernel is mapped once, at Open.
type Ring struct {
	fd      int
	ringMem []byte // SQ and CQ rings (one mapping: IORING_FEAT_SINGLE_MMAP)
	sqeMem  []byte

	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []sqe
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	seq uint64 // the last request's number, in every entry's user_data
	// broken: a request's entries could not be reaped; the ring is
	// closed rather than reused with them in flight.
	broken bool
}

// Open sets up a ring and checks that the kernel can do what ConnectSend
// needs. Every failure is a *RefusedError.
func Open() (*Ring, error) {
	var p params
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, entries, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, &RefusedError{Step: "io_uring_setup", Errno: errno}
	}
	r := &Ring{fd: int(fd)}
	if err := r.setup(&p); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// setup maps the rings and probes the kernel.
func (r *Ring) setup(p *params) error {
	if p.features&featSingleMmap == 0 {
		return &RefusedError{Step: "io_uring_setup", Missing: "a single ring mapping (kernel before 5.4)"}
	}
	if p.features&featExtArg == 0 {
		return &RefusedError{Step: "io_uring_setup", Missing: "a wait timeout (kernel before 5.11)"}
	}
	size := max(int(p.sqOff.array)+int(p.sqEntries)*4, int(p.cqOff.cqes)+int(p.cqEntries)*int(unsafe.Sizeof(cqe{})))
	mem, err := unix.Mmap(r.fd, offSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return &RefusedError{Step: "mmap rings", Errno: errnoOf(err)}
	}
	r.ringMem = mem
	sqes, err := unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return &RefusedError{Step: "mmap entries", Errno: errnoOf(err)}
	}
	r.sqeMem = sqes
	r.sqHead = (*uint32)(unsafe.Pointer(&mem[p.sqOff.head]))
	r.sqTail = (*uint32)(unsafe.Pointer(&mem[p.sqOff.tail]))
	r.sqMask = *(*uint32)(unsafe.Pointer(&mem[p.sqOff.ringMask]))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Pointer(&mem[p.sqOff.array])), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqes[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Pointer(&mem[p.cqOff.head]))
	r.cqTail = (*uint32)(unsafe.Pointer(&mem[p.cqOff.tail]))
	r.cqMask = *(*uint32)(unsafe.Pointer(&mem[p.cqOff.ringMask]))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&mem[p.cqOff.cqes])), p.cqEntries)
	return r.probe()
}

// probe asks the kernel which operations it has (5.6 and later): a
// kernel may have io_uring but not CONNECT (5.5) or SEND (5.6).
func (r *Ring) probe() error {
	var buf struct {
		hdr probeHeader
		ops [probeOps]probeOp
	}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerProbe, uintptr(unsafe.Pointer(&buf)), probeOps, 0, 0)
	if errno != 0 {
		return &RefusedError{Step: "probe", Errno: errno}
	}
	for _, op := range []struct {
		code int
		name string
	}{{opConnect, "CONNECT"}, {opSend, "SEND"}, {opAsyncCancel, "ASYNC_CANCEL"}} {
		if op.code > int(buf.hdr.lastOp) || buf.ops[op.code].flags&probeOpSupported == 0 {
			return &RefusedError{Step: "probe", Missing: op.name}
		}
	}
	return nil
}

// Close unmaps the rings and closes the ring; the kernel cancels
// whatever was still in flight.
func (r *Ring) Close() error {
	var errs []error
	for _, m := range [][]byte{r.sqeMem, r.ringMem} {
		if m != nil {
			errs = append(errs, unix.Munmap(m))
		}
	}
	r.sqeMem, r.ringMem = nil, nil
	if r.fd >= 0 {
		errs = append(errs, unix.Close(r.fd))
		r.fd = -1
	}
	return errors.Join(errs...)
}

// push queues e at the submission tail; the kernel sees it once the tail
// is published (publish).
func (r *Ring) push(e sqe) {
	tail := atomic.LoadUint32(r.sqTail)
	i := tail & r.sqMask
	r.sqes[i] = e
	r.sqArray[i] = i
	atomic.StoreUint32(r.sqTail, tail+1)
}

// unsubmitted is how many queued entries the kernel has not taken yet.
func (r *Ring) unsubmitted() uint32 {
	return atomic.LoadUint32(r.sqTail) - atomic.LoadUint32(r.sqHead)
}

// reap calls f with every completion waiting in the ring and frees their
// slots.
func (r *Ring) reap(f func(cqe)) {
	head := atomic.LoadUint32(r.cqHead)
	tail := atomic.LoadUint32(r.cqTail)
	for ; head != tail; head++ {
		f(r.cqes[head&r.cqMask])
	}
	atomic.StoreUint32(r.cqHead, head)
}

func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EINVAL
}
