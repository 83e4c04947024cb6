package hooks

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/quote"
)

// promptsPerRound is how many prompts one timed round drives.
const promptsPerRound = 200

// baselineEnv names a directory holding other herdrtabrenamer.{zsh,bash,fish}
// files (an older version, say from `git show`). When it is set, the
// benchmark times them too, in the same run, so a change to a snippet can be
// judged against the machine's noise of the moment.
const baselineEnv = "HTR_BENCH_BASELINE"

// BenchmarkPromptOverhead drives 200 prompts through each shell with and
// without the hook, in the same run, and reports the time per prompt of
// both and the difference (target: under 1 ms). A "command" prompt runs one
// no-op command, so both the preexec and the precmd hook fire; an "empty"
// prompt is a bare Enter, which runs no command and needs no nudge.
//
// The hook calls `true` here, not the real binary: what the prompt pays for
// is the shell's fork of a background job. The nudge process itself runs
// after the prompt is back; its cost is the nudge command's own figure, and
// 400 of them at once on a small machine would only measure CPU contention.
func BenchmarkPromptOverhead(b *testing.B) {
	baseline := os.Getenv(baselineEnv)
	for _, sh := range shells {
		b.Run(sh.name, func(b *testing.B) {
			needShell(b, sh.name)
			noop := ":"
			if sh.name == "fish" {
				noop = "true"
			}
			stub, err := exec.LookPath("true")
			if err != nil {
				b.Skip("no true command in PATH")
			}
			hooked := startSession(b, sh, newWorld(b), sh.rc(binPath, "", 1, " --cmd "+stub), true)
			plain := startSession(b, sh, newWorld(b), sh.rc(binPath, "", 0, ""), true)
			var old *session
			if baseline != "" {
				w := newWorld(b)
				file := renderBaseline(b, baseline, sh.name, stub, w.home)
				old = startSession(b, sh, w, sh.rc(binPath, "source '"+file+"'", 0, ""), true)
			}
			round := 0
			// drive types all lines at once (typeahead) and waits for a
			// marker printed after the last one.
			drive := func(s *session, line string) time.Duration {
				round++
				marker := fmt.Sprintf("B%dE", round)
				input := strings.Repeat(line+"\r", promptsPerRound) + fmt.Sprintf("printf 'B%%sE\\n' %d\r", round)
				start := time.Now()
				if _, err := io.WriteString(s.tty, input); err != nil {
					b.Fatal(err)
				}
				s.waitFor(marker, 1)
				return time.Since(start)
			}
			type cost struct{ hooked, plain, old time.Duration }
			var command, empty cost
			// Interleaved, so a burst of load elsewhere hits every variant.
			measure := func(c *cost, line string) {
				c.hooked += drive(hooked, line)
				c.plain += drive(plain, line)
				if old != nil {
					c.old += drive(old, line)
				}
			}
			b.ResetTimer()
			for range b.N {
				measure(&command, noop)
				measure(&empty, "")
			}
			b.StopTimer()
			prompts := float64(b.N * promptsPerRound)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / prompts }
			b.ReportMetric(ms(command.hooked), "ms/prompt-hooked")
			b.ReportMetric(ms(command.plain), "ms/prompt-plain")
			b.ReportMetric(ms(command.hooked)-ms(command.plain), "ms/prompt-overhead")
			b.ReportMetric(ms(empty.hooked)-ms(empty.plain), "ms/empty-overhead")
			if old != nil {
				b.ReportMetric(ms(command.old)-ms(command.plain), "ms/prompt-overhead-baseline")
				b.ReportMetric(ms(empty.old)-ms(empty.plain), "ms/empty-overhead-baseline")
			}
		})
	}
}

// renderBaseline writes the baseline snippet for shell, filled in as `init`
// would fill ours, into dir and returns its path.
func renderBaseline(b *testing.B, baseline, shell, bin, dir string) string {
	b.Helper()
	name := "herdrtabrenamer." + shell
	src, err := os.ReadFile(filepath.Join(baseline, name))
	if err != nil {
		b.Fatalf("%s: %v", baselineEnv, err)
	}
	text, err := preexecBlocks(string(src), true)
	if err != nil {
		b.Fatalf("%s: %s: %v", baselineEnv, name, err)
	}
	quoted := quote.Shell(shell, bin)
	text, err = fill(name, text, "'"+placeholder+"'", quoted)
	if err != nil {
		b.Fatalf("%s: %v", baselineEnv, err)
	}
	path := filepath.Join(dir, "baseline."+shell)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}
