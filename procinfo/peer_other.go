//go:build !linux && !darwin

package procinfo

import (
	"errors"
	"fmt"
)

// sockPeerPID is not known here: the kernel does not say.
func sockPeerPID(int) (int32, error) { return 0, errors.ErrUnsupported }

// herdrClients: here the kernel shows no other process's executable and terminal
// cheaply enough here.
func herdrClients(int) ([]int, error) {
	return nil, fmt.Errorf("herdr's clients: %w", errors.ErrUnsupported)
}
