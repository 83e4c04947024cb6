package procwatch

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// BlindError says that some watched shells go without one of the
// kernel's events and are found out by looking at them often instead
// (a few times a second, within a bounded cost), and what would give the
// events back.
type BlindError struct {
	// Missing is what the kernel did not give: "no inotify instance",
	// "no inotify watch left", "no pidfd_open", ...
	Missing string
	// Polled of Shells watched go without it.
	Polled, Shells int
	// Fix is what gives it back ("raise fs.inotify.max_user_watches");
	// "" when no limit does.
	Fix string
	Err error // the kernel's answer
}

func (e *BlindError) Error() string {
	s := fmt.Sprintf("%s (%v): %d of %d shells watched by polling", e.Missing, e.Err, e.Polled, e.Shells)
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

func (e *BlindError) Unwrap() error { return e.Err }

// blindness sums up why shells go without events: nil when none does, one
// *BlindError per cause otherwise, joined.
func blindness(shells map[string]*shell) error {
	causes := map[string]*BlindError{}
	live := 0
	add := func(err error) {
		var l *lack
		if !errors.As(err, &l) {
			l = &lack{what: "no terminal to watch", err: err}
		}
		c := causes[l.what]
		if c == nil {
			c = &BlindError{Missing: l.what, Fix: l.fix, Err: l.err}
			causes[l.what] = c
		}
		c.Polled++
	}
	for _, sh := range shells {
		if sh.gone {
			continue
		}
		live++
		if sh.watchErr != nil {
			add(sh.watchErr)
		}
		if sh.exitErr != nil {
			add(sh.exitErr)
		}
	}
	var errs []error
	for _, what := range slices.Sorted(maps.Keys(causes)) {
		causes[what].Shells = live
		errs = append(errs, causes[what])
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
