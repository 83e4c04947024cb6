//go:build !windows

package procinfo

func localInspector() Inspector { return local{} }
