package integration

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// demoBars parses demo's output into step number -> tab bar, the bar
// being the indented line after each "N. story" line.
func demoBars(t *testing.T, out string) map[int][]string {
	t.Helper()
	step := regexp.MustCompile(`^(\d+)\. `)
	bars := map[int][]string{}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		m := step.FindStringSubmatch(l)
		if m == nil || i+1 >= len(lines) {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		bar := strings.NewReplacer("[", " ", "]", " ").Replace(lines[i+1])
		bars[n] = splitBar(bar)
	}
	return bars
}

// splitBar splits a tab bar into labels: labels are separated by at
// least two spaces (a label like "🟡 nixos" holds one).
func splitBar(bar string) []string {
	var out []string
	for _, f := range regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(bar), -1) {
		if f != "" {
			out = append(out, strings.TrimSpace(f))
		}
	}
	return out
}

// TestDemo: demo runs without herdr, exits 0 and tells its story; the
// bars after each step are what the daemon code decided, so a daemon that
// did nothing would show herdr's numbers instead.
func TestDemo(t *testing.T) {
	t.Parallel()
	out, stderr, code := runCLI(t, nil, "demo")
	if code != 0 {
		t.Fatalf("demo: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
	}
	bars := demoBars(t, out)
	want := map[int][]string{
		1: {"rmk"},
		2: {"rmk", "🟡 nixos"},
		3: {"rmk", "🟡 nixos", "btop"},
		4: {"rmk", "🔴 nixos", "btop"},
		5: {"rmk", "🟢 nixos", "btop"},
		6: {"rmk", "🟢 nixos", "rmk"},
		7: {"rmk", "🟢 nixos", "rmk", "⚪ pi"},
		8: {"rmk", "review", "rmk", "⚪ pi"},
		9: {"rmk", "review", "rmk", "⚪ pi"},
	}
	for n, w := range want {
		if got := bars[n]; strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("step %d bar = %q, want %q\n%s", n, got, w, out)
		}
	}
	if len(bars) != len(want) {
		t.Errorf("demo printed %d steps, want %d:\n%s", len(bars), len(want), out)
	}

	out, _, code = runCLI(t, nil, "demo", "--format", "{proc|agent}:{dir}")
	if code != 0 {
		t.Fatalf("demo --format: exit %d", code)
	}
	if got := demoBars(t, out)[3]; strings.Join(got, "|") != "rmk|claude:nixos|btop:rmk" {
		t.Errorf("demo --format step 3 bar = %q\n%s", got, out)
	}
	if _, stderr, code := runCLI(t, nil, "demo", "--format", "{nope}"); code != 2 {
		t.Errorf("demo with a bad template: exit %d, want 2; stderr %q", code, stderr)
	}
}
