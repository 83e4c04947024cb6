//go:build windows

package procinfo

import (
	"errors"
	"fmt"
)

// On Windows herdr's pane.process_info is the only source of program
// names: a pane's console has no foreground process group to read, and the
// local cross-checks (argv, only child of a wrapper) are untested there.
// Every local look says so, and the resolver and the daemon fall back to
// what herdr tells (docs/herdr.md §9).
func localInspector() Inspector { return noLocal{} }

type noLocal struct{}

var errNoLocal = fmt.Errorf("local process inspection on windows: %w", errors.ErrUnsupported)

func (noLocal) ForegroundPGID(int) (int, error) { return 0, errNoLocal }
func (noLocal) Process(int) (Proc, error)       { return Proc{}, errNoLocal }
func (noLocal) Children(int) ([]int, error)     { return nil, errNoLocal }
