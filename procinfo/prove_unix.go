//go:build linux || darwin

package procinfo

// maxAncestors bounds a walk up the parent chain: a shell is herdr's child
// or close to it, and a chain that loops (pids reused meanwhile) must end.
const maxAncestors = 64

// descends says whether pid has ancestor among its parents.
func descends(pid, ancestor int) bool {
	for range maxAncestors {
		parent, err := parentOf(pid)
		if err != nil || parent <= 0 {
			return false
		}
		if parent == ancestor {
			return true
		}
		if parent == 1 {
			return false
		}
		pid = parent
	}
	return false
}
