package session

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// TestDatabaseTitleCutWhileReadResident: a title of 32 MiB in a
// database leaves the process's peak resident memory where it was:
// SQLite reads the first pages of the value, not the value (its memory
// is outside Go's heap, so TestDatabaseTitleCutWhileRead cannot see it).
func TestDatabaseTitleCutWhileReadResident(t *testing.T) {
	w := newWorld(t)
	s := stores["opencode"]
	p := filepath.Join(w.home, s.rel)
	db := openWriter(t, p)
	if _, err := db.Exec(string(fixture(t, s.schema))); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE session SET title = ? WHERE id = ?", "auth redirect "+strings.Repeat("x", 32<<20), s.id); err != nil {
		t.Fatal(err)
	}
	db.Close()
	r := w.reader()
	runtime.GC()
	debug.FreeOSMemory()
	// Resets the peak to what is resident now (Linux 4.0 and later).
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak: %v", err)
	}
	before := peakRSS(t)
	if got := r.Title(s.ref()); !strings.HasPrefix(got, "auth redirect x") {
		t.Fatalf("Title = %.40q", got)
	}
	if grew := peakRSS(t) - before; grew > 8<<20 {
		t.Errorf("reading a 32 MiB title raised the peak resident memory by %d KiB", grew>>10)
	} else {
		t.Logf("the peak grew by %d KiB", grew>>10)
	}
}

// peakRSS is VmHWM, the process's peak resident memory, in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}
