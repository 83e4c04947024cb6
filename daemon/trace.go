package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
)

// Traces are the moments of the daemon's work that tests wait on: an
// event done with, a subscription, the full pass it asks for, a pause
// before resubscribing. Each is a debug log line carrying a stable
// "trace" field (what tests of the built binary read, in either log
// format) and, when Options.Trace is set, a typed value handed to it (what
// tests in this package read). The lines' wording is free to change.

// TraceKind names a moment.
type TraceKind string

// The moments traced.
const (
	// TraceTriaged: an event is done with, a pass it ran included.
	TraceTriaged TraceKind = "triaged"
	// TraceSubscribed: a subscription was acked; it asked for a full pass.
	TraceSubscribed TraceKind = "subscribed"
	// TraceSubscribeFailed: a subscribe failed; FullPass says whether it
	// asked for a full pass.
	TraceSubscribeFailed TraceKind = "subscribe_failed"
	// TraceFullPassDone: a full pass a (failed) subscribe asked for ran.
	TraceFullPassDone TraceKind = "full_pass_done"
	// TraceResubscribePause: a pause before resubscribing.
	TraceResubscribePause TraceKind = "resubscribe_pause"
	// TraceDebounceIdle: the debounce window closed with no news.
	TraceDebounceIdle TraceKind = "debounce_idle"
	// TraceDownSkip: herdr is still down; a pass was skipped.
	TraceDownSkip TraceKind = "down_skip"
	// TracePass: a pass ended; Stats are its counters.
	TracePass TraceKind = "pass"
	// TraceOutage: herdr went away (once per outage); TraceBack: it is
	// back.
	TraceOutage TraceKind = "outage"
	TraceBack   TraceKind = "back"
	// TraceEventsLost: herdr dropped events the stream was too slow for.
	TraceEventsLost TraceKind = "events_lost"
	// TraceReplayOver: a subscription's rename entry (Event: its kind)
	// has delivered its history, at once on 0.9, which does not replay;
	// what it sends from now on is live.
	TraceReplayOver TraceKind = "replay_over"
	// TraceReloaded: a reload took effect. TraceStateKept: it asked for
	// another state file, which only a restart may change (Path: the one
	// kept).
	TraceReloaded  TraceKind = "reloaded"
	TraceStateKept TraceKind = "state_kept"
	// TracePolls: the polls changed (Poll: the full poll, AgentPoll: the
	// status poll; 0: off).
	TracePolls TraceKind = "polls"
	// TraceWatched: the local watch saw a change in Pane's shell (News),
	// or input read from its terminal (Input).
	TraceWatched TraceKind = "watched"
	// TraceSeenWatch: the seen watch started, stopped or changed: Done
	// says whether an agent is done in the focused tab, Clients how many
	// terminals of herdr's clients it watches (none while Done: the
	// status poll stands in).
	TraceSeenWatch TraceKind = "seen_watch"
	// TraceSeenInput: a watched client of herdr read its terminal (PID).
	TraceSeenInput TraceKind = "seen_input"
	// TraceSettled: start-up is over (the first pass and the full pass
	// after subscribing ran) and its memory was handed back.
	TraceSettled TraceKind = "settled"
)

// Trace is one traced moment.
type Trace struct {
	Kind TraceKind
	// Triaged: the event and whether it asked for a pass. ReplayOver:
	// the entry's event kind. Watched: the pane, whether its program or
	// directory may have changed (News) and whether its terminal read
	// input (Input).
	Event string
	TabID string
	Pane  string
	Label string
	News  bool
	Input bool
	// Subscribed, SubscribeFailed: whether a full pass was asked for (not
	// already owed).
	FullPass bool
	// ResubscribePause: how long.
	Pause time.Duration
	// Pass: the pass's counters.
	Stats pass.Stats
	// StateKept: the state file kept.
	Path string
	// Polls: the intervals.
	Poll, AgentPoll time.Duration
	// SeenWatch: whether an agent is done in the focused tab, and the
	// clients watched. SeenInput: the client.
	Done    bool
	Clients int
	PID     int
}

// tracer logs the daemon's traced moments and hands them to
// Options.Trace (as New found it: a reload does not change it). Any
// goroutine may use it.
type tracer struct {
	log *slog.Logger
	fn  func(Trace)
}

// trace logs t at debug level under msg, with its stable "trace" field
// and attrs, and hands it on.
func (tr tracer) trace(t Trace, msg string, attrs ...any) {
	tr.traceAt(slog.LevelDebug, t, msg, attrs...)
}

// traceAt is trace for a line a person reads too, at its own level.
func (tr tracer) traceAt(level slog.Level, t Trace, msg string, attrs ...any) {
	tr.log.Log(context.Background(), level, msg, append([]any{"trace", string(t.Kind)}, attrs...)...)
	if tr.fn != nil {
		tr.fn(t)
	}
}
