//go:build !windows

package rundir

import "github.com/google/renameio/v2"

// writeAtomic writes a private file in one rename.
func writeAtomic(path string, b []byte) error { return renameio.WriteFile(path, b, 0o600) }
