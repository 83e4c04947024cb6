package uring

import "unsafe"

// The kernel's io_uring ABI (include/uapi/linux/io_uring.h), the parts
// used here.

// Opcodes.
const (
	opAsyncCancel = 14
	opConnect     = 16
	opSend        = 26
)

// Submission entry flags.
const sqeIOLink = 1 << 2 // IOSQE_IO_LINK: the next entry starts once this one succeeds

// io_uring_enter flags.
const (
	enterGetEvents = 1 << 0 // IORING_ENTER_GETEVENTS
	enterExtArg    = 1 << 3 // IORING_ENTER_EXT_ARG: arg is an io_uring_getevents_arg
)

// Features the kernel reports at setup.
const (
	featSingleMmap = 1 << 0 // IORING_FEAT_SINGLE_MMAP: SQ and CQ rings share one mapping
	featExtArg     = 1 << 8 // IORING_FEAT_EXT_ARG: io_uring_enter takes a timeout (5.11)
)

// mmap offsets of the rings.
const (
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)

// registerProbe is IORING_REGISTER_PROBE; probeOpSupported is
// IO_URING_OP_SUPPORTED.
const (
	registerProbe    = 8
	probeOpSupported = 1 << 0
	probeOps         = 256
)

// sqringOffsets is struct io_sqring_offsets.
type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// cqringOffsets is struct io_cqring_offsets.
type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// params is struct io_uring_params.
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// sqe is struct io_uring_sqe (64 bytes): the fields this package sets.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64 // CONNECT: the address's length
	addr        uint64 // CONNECT: the address; SEND: the bytes; ASYNC_CANCEL: the user_data to cancel
	len         uint32
	opFlags     uint32 // SEND: msg_flags
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	pad         uint64
}

// cqe is struct io_uring_cqe (16 bytes).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// geteventsArg is struct io_uring_getevents_arg.
type geteventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64 // *struct __kernel_timespec
}

// probeHeader is struct io_uring_probe; probeOp is struct
// io_uring_probe_op, probeOps of which follow the header.
type probeHeader struct {
	lastOp, opsLen uint8
	resv           uint16
	resv2          [3]uint32
}

type probeOp struct {
	op, resv uint8
	flags    uint16
	resv2    uint32
}

// Sizes the kernel expects; a layout mistake fails the build.
var (
	_ [64 - unsafe.Sizeof(sqe{})]struct{}
	_ [unsafe.Sizeof(sqe{}) - 64]struct{}
	_ [16 - unsafe.Sizeof(cqe{})]struct{}
	_ [120 - unsafe.Sizeof(params{})]struct{}
	_ [unsafe.Sizeof(params{}) - 120]struct{}
	_ [24 - unsafe.Sizeof(geteventsArg{})]struct{}
	_ [16 - unsafe.Sizeof(probeHeader{})]struct{}
	_ [8 - unsafe.Sizeof(probeOp{})]struct{}
)
