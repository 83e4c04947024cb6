//go:build !linux

package procinfo

import (
	"errors"
	"fmt"
)

// herdrClients: other platforms show no other process's executable and
// terminal cheaply enough here.
func herdrClients(int) ([]int, error) {
	return nil, fmt.Errorf("herdr's clients: %w", errors.ErrUnsupported)
}
