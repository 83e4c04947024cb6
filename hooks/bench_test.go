package hooks

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// promptsPerRound is how many prompts one timed round drives.
const promptsPerRound = 200

// BenchmarkPromptOverhead drives 200 prompts through each shell with and
// without the hook, in the same run, and reports the time per prompt of
// both and the difference (target: under 1 ms). Each prompt runs one no-op
// command, so both the preexec and the precmd hook fire.
//
// The hook calls `true` here, not the real binary: what the prompt pays for
// is the shell's fork of a background job. The nudge process itself runs
// after the prompt is back; its cost is the nudge command's own figure, and
// 400 of them at once on a small machine would only measure CPU contention.
func BenchmarkPromptOverhead(b *testing.B) {
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
			w := newWorld(b)
			hooked := startSession(b, sh, w, sh.rc(binPath, "", 1, " --cmd "+stub), true)
			plain := startSession(b, sh, newWorld(b), sh.rc(binPath, "", 0, ""), true)
			round := 0
			// drive types all commands at once (typeahead) and waits for a
			// marker printed after the last one.
			drive := func(s *session) time.Duration {
				round++
				marker := fmt.Sprintf("B%dE", round)
				input := strings.Repeat(noop+"\r", promptsPerRound) + fmt.Sprintf("printf 'B%%sE\\n' %d\r", round)
				start := time.Now()
				if _, err := io.WriteString(s.tty, input); err != nil {
					b.Fatal(err)
				}
				s.waitFor(marker, 1)
				return time.Since(start)
			}
			var withHook, without time.Duration
			b.ResetTimer()
			for range b.N {
				withHook += drive(hooked)
				without += drive(plain)
			}
			b.StopTimer()
			prompts := float64(b.N * promptsPerRound)
			hookMs := float64(withHook.Microseconds()) / 1000 / prompts
			baseMs := float64(without.Microseconds()) / 1000 / prompts
			b.ReportMetric(hookMs, "ms/prompt-hooked")
			b.ReportMetric(baseMs, "ms/prompt-plain")
			b.ReportMetric(hookMs-baseMs, "ms/prompt-overhead")
		})
	}
}
