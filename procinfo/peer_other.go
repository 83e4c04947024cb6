//go:build !linux && !darwin

package procinfo

import "errors"

// sockPeerPID is not known here: the kernel does not say.
func sockPeerPID(int) (int32, error) { return 0, errors.ErrUnsupported }
