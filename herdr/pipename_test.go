package herdr

import "testing"

func TestPipeName(t *testing.T) {
	tests := []struct{ path, want string }{
		// herdr's default socket under %APPDATA%.
		{`C:\Users\me\AppData\Roaming\herdr\herdr.sock`, `\\.\pipe\C:\Users\me\AppData\Roaming\herdr\herdr.sock`},
		// A named session.
		{`C:\Users\me\AppData\Roaming\herdr\sessions\work\herdr.sock`, `\\.\pipe\C:\Users\me\AppData\Roaming\herdr\sessions\work\herdr.sock`},
		// The relative marker path of herdr's own integration test.
		{`herdr-opencode-42.sock`, `\\.\pipe\herdr-opencode-42.sock`},
		// HERDR_SOCKET_PATH is used verbatim by herdr, odd separators and all.
		{`C:/tmp/h/../herdr.sock`, `\\.\pipe\C:/tmp/h/../herdr.sock`},
		{`D:\herdr dev\herdr.sock`, `\\.\pipe\D:\herdr dev\herdr.sock`},
		// Already a pipe name: kept (any case of the prefix).
		{`\\.\pipe\herdr`, `\\.\pipe\herdr`},
		{`\\.\PIPE\herdr`, `\\.\PIPE\herdr`},
		// Not quite the prefix: treated as a path.
		{`\\.\pipes\x`, `\\.\pipe\\\.\pipes\x`},
		{``, `\\.\pipe\`},
	}
	for _, tt := range tests {
		if got := PipeName(tt.path); got != tt.want {
			t.Errorf("PipeName(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
