//go:build !linux && !darwin

package procwatch

const supported = false

func newKernel() (kernel, error) { return nil, ErrUnsupported }
