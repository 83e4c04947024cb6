package testutil

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// The daemon's debug log is one of the surfaces its tests wait on: the
// moments tests wait for carry a stable "trace" field (daemon.TraceKind),
// whatever their message says: one trace=triaged line per event it was
// sent, once the event is done with (a pass it ran included), each full
// pass its event watcher asks for (full_pass=asked) and runs
// (trace=full_pass_done), and each pause before a resubscribe. The
// helpers below read those fields in the text format and in JSON.

// Traced are the lines of log that carry trace kind.
func Traced(log, kind string) []string {
	return GrepField(log, "trace", kind)
}

// GrepField are the lines of log whose field key has the string value v,
// in the text format (key=v) or JSON ("key":"v").
func GrepField(log, key, v string) []string {
	text, json := key+"="+v, `"`+key+`":"`+v+`"`
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, text+" ") || strings.HasSuffix(l, text) || strings.Contains(l, json) {
			out = append(out, l)
		}
	}
	return out
}

// EventSource is what a fake herdr counts of the events it sends;
// herdrsim.Server has it.
type EventSource interface {
	EventsDelivered() int
	Undelivered() int
	OpenStreams() int
}

// CaughtUp waits until a daemon is subscribed to src, src has sent it
// every event so far, and the daemon has triaged each one, and returns
// the triage lines from log (the daemon's debug log; src's only client
// since src started). A check that nothing more happened belongs after
// it: the daemon has seen everything there was.
func CaughtUp(t testing.TB, src EventSource, log func() string) []string {
	t.Helper()
	var lines []string
	WaitFor(t, "every event sent to the daemon and triaged", func() bool {
		sent := src.EventsDelivered()
		lines = Traced(log(), "triaged")
		// In this order, an echo of a pass run for the last event is
		// either still undelivered or counted as sent.
		return len(lines) == sent && src.OpenStreams() > 0 && src.Undelivered() == 0 && src.EventsDelivered() == sent
	}, func() string {
		return fmt.Sprintf("sent %d, undelivered %d, triaged %d\nlog:\n%s", src.EventsDelivered(), src.Undelivered(), len(lines), log())
	})
	return lines
}

// News are the triage lines of events that asked for a pass (or a look).
func News(triaged []string) []string {
	return slices.DeleteFunc(slices.Clone(triaged), func(l string) bool {
		return strings.Contains(l, "news=false") || strings.Contains(l, `"news":false`)
	})
}

// SubscribePassesDone reports whether every full pass the daemon's event
// watcher asked for after (failing to) subscribe has run: one still owed
// could come at any later moment of a test.
func SubscribePassesDone(log string) bool {
	return len(GrepField(log, "full_pass", "asked")) == len(Traced(log, "full_pass_done"))
}

// Subscribed reports whether the daemon's event watcher has subscribed at
// least once and every full pass it asked for has run. A herdr fake sees
// the subscription (its stream open) before the daemon logs it, so a
// test that waits on the fake alone can start its changes while the
// subscribe pass is still to come, and that pass then renames for them.
func Subscribed(log string) bool {
	return len(Traced(log, "subscribed")) > 0 && SubscribePassesDone(log)
}

// ResubscribePauses are the pauses the daemon logged before resubscribing
// after a stream that ended early, in order.
func ResubscribePauses(log string) ([]time.Duration, error) {
	var out []time.Duration
	for _, l := range Traced(log, "resubscribe_pause") {
		_, v, _ := strings.Cut(l, " after=")
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("pause in log line %q: %w", l, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// Grep are the lines of s that contain sub.
func Grep(s, sub string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}
