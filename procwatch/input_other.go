//go:build !linux

package procwatch

// inputEvents: here the kernel tells no one of a terminal's reads (macOS
// has no such event), so an InputWatch has nothing to arm.
const inputEvents = false
