package resident

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Only private read-only file mappings without private copies are
// dropped: the program's code and read-only data, a library's code; not
// its relocated data (private copies), nor writable, anonymous, shared or
// kernel mappings.
func TestDroppable(t *testing.T) {
	b, err := os.ReadFile("testdata/smaps")
	if err != nil {
		t.Fatal(err)
	}
	got := droppable(b)
	want := []mapping{{0x400000, 0xb4b000}, {0xb4b000, 0x132d000}, {0x7f0000000000, 0x7f0000026000}, {0x7f0000026000, 0x7f000017c000}}
	if len(got) != len(want) {
		t.Fatalf("droppable = %x, want %x", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d = %x, want %x", i, got[i], want[i])
		}
	}
}

// After HandBack the test binary's file pages are no longer all mapped,
// and the program runs on, its pages mapped again as it touches them.
func TestHandBackUnmapsFilePages(t *testing.T) {
	before := rssFile(t)
	HandBack()
	after := rssFile(t)
	if after >= before {
		t.Errorf("RssFile %d kB after HandBack, %d kB before", after, before)
	}
	if strings.Repeat("x", 3) != "xxx" { // code runs again after the drop
		t.Fatal("unreachable")
	}
}

func rssFile(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}
