package owner

import (
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Memory is what the rule reads of a target's memory.
type Memory struct {
	// Labels are labels of ours on the target: the last we set, and any
	// that may still land.
	Labels []string
	// Locked: a person froze the target's label, which showed
	// LockedLabel then.
	Locked      bool
	LockedLabel string
	// Released: a person handed the target back to us. ReleasedFrom,
	// when not nil, is the label the target showed then: a person who
	// names it anything else since ends the release.
	Released     bool
	ReleasedFrom *string
	// Landing are the labels of ours asked for so recently that the
	// request may still land (a subset of Labels).
	Landing []string
	// Recorded are the labels renames of ours set or asked for whose
	// fate the memory still follows (flights), however old.
	Recorded []string
}

// Of is what the memory holds of a target, e, as the rule reads it at
// now: the one place a Memory is made of a memory entry.
func Of(e state.Entry, now time.Time) Memory {
	m := Memory{Locked: e.Locked, Released: e.Released, ReleasedFrom: e.ReleasedFrom, LockedLabel: e.LockedLabel,
		Labels: e.OurLabels(now), Landing: e.Landing(now)}
	for _, f := range e.Flights {
		m.Recorded = append(m.Recorded, f.Want)
	}
	return m
}

// Labels is the partial memory of a caller that knows only labels of
// ours: no lock, no release, nothing landing.
func Labels(ours ...string) Memory { return Memory{Labels: ours} }

// With is m with more labels of ours: ones the caller knows are ours
// that the memory does not hold (yet).
func (m Memory) With(ours ...string) Memory {
	m.Labels = append(slices.Clip(m.Labels), ours...)
	return m
}

// WithLanding is m with more labels of ours that may still land.
func (m Memory) WithLanding(labels ...string) Memory {
	m.Landing = append(slices.Clip(m.Landing), labels...)
	return m
}

// labelsOnly is m less what is no label: a workspace's memory.
func (m Memory) labelsOnly() Memory { return Labels(m.Labels...) }
