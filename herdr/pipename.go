package herdr

import "strings"

// pipePrefix is the local named-pipe namespace on Windows.
const pipePrefix = `\\.\pipe\`

// PipeName is the Windows named pipe herdr listens on for the API socket
// path socketPath: the path, verbatim, after `\\.\pipe\`. herdr 0.8.2
// hands the path's string to the interprocess crate as a "generic
// namespaced" name (src/ipc.rs@v0.8.2, connect_local_stream and
// bind_local_listener), which on Windows means exactly that prefix, and its
// own agent integrations connect the same way (docs/herdr.md §2). The path is
// not cleaned or re-separated: herdr does not, and the pipe name must
// match byte for byte. A name that already is a pipe name is kept, so
// --socket can name a pipe directly.
func PipeName(socketPath string) string {
	if len(socketPath) >= len(pipePrefix) && strings.EqualFold(socketPath[:len(pipePrefix)], pipePrefix) {
		return socketPath
	}
	return pipePrefix + socketPath
}
