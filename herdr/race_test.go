package herdr

import (
	"context"
	"errors"
	"testing"
	"time"
)

// scriptedSend is one send of a race that the test answers by hand: it
// returns its name or an error when told, or ctx's error when the race
// gives up on it first.
type scriptedSend struct {
	name      string
	started   chan struct{}
	answer    chan error
	cancelled bool // set before the send returns
}

func newScriptedSend(name string) *scriptedSend {
	return &scriptedSend{name: name, started: make(chan struct{}), answer: make(chan error, 1)}
}

func (s *scriptedSend) send(ctx context.Context) (string, error) {
	close(s.started)
	select {
	case err := <-s.answer:
		return s.reply(err)
	case <-ctx.Done():
		// An answer given before the race ended is the answer, whichever
		// of the two the select saw first.
		select {
		case err := <-s.answer:
			return s.reply(err)
		default:
		}
		s.cancelled = true
		return "", ctx.Err()
	}
}

func (s *scriptedSend) reply(err error) (string, error) {
	if err != nil {
		return "", err
	}
	return s.name, nil
}

func TestRaceTwo(t *testing.T) {
	errFirst, errSecond := errors.New("first failed"), errors.New("second failed")
	tests := []struct {
		name  string
		admit bool
		// steps in order: "due" fires the second send's trigger; a send's
		// name with ok or its error answers it. Sends never answered are
		// the losers.
		steps []string
		want  string
		err   error
		res   raceResult
		// cancelled are the sends whose context the race cancelled.
		cancelled []string
	}{
		{name: "first answers before the second is due", steps: []string{"first ok"}, want: "first"},
		{name: "a first failure is not retried", steps: []string{"first fails"}, err: errFirst},
		{name: "the second is refused", steps: []string{"due", "first ok"}, want: "first"},
		{name: "the second wins", admit: true, steps: []string{"due", "second ok"}, want: "second",
			res: raceResult{secondSent: true, secondWon: true}, cancelled: []string{"first"}},
		{name: "the first wins after the second went out", admit: true, steps: []string{"due", "first ok"}, want: "first",
			res: raceResult{secondSent: true}, cancelled: []string{"second"}},
		{name: "the second fails, the first answers", admit: true, steps: []string{"due", "second fails", "first ok"}, want: "first",
			res: raceResult{secondSent: true}},
		{name: "the first fails, the second answers", admit: true, steps: []string{"due", "first fails", "second ok"}, want: "second",
			res: raceResult{secondSent: true, secondWon: true}},
		{name: "both fail: the first's error", admit: true, steps: []string{"due", "second fails", "first fails"}, err: errFirst,
			res: raceResult{secondSent: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			leakCheck(t)
			first, second := newScriptedSend("first"), newScriptedSend("second")
			sends := map[string]*scriptedSend{"first": first, "second": second}
			due := make(chan time.Time, 1)
			type ended struct {
				v   string
				res raceResult
				err error
			}
			done := make(chan ended, 1)
			go func() {
				v, res, err := raceTwo(context.Background(), first.send, second.send, due, func() bool { return tc.admit })
				done <- ended{v, res, err}
			}()
			<-first.started
			for _, step := range tc.steps {
				switch step {
				case "due":
					due <- time.Now()
					if tc.admit {
						<-second.started
					}
				case "first ok":
					first.answer <- nil
				case "first fails":
					first.answer <- errFirst
				case "second ok":
					second.answer <- nil
				case "second fails":
					second.answer <- errSecond
				default:
					t.Fatalf("unknown step %q", step)
				}
			}
			var got ended
			select {
			case got = <-done:
			case <-time.After(waitLong):
				t.Fatal("the race did not end")
			}
			if got.v != tc.want || !errors.Is(got.err, tc.err) || got.res != tc.res {
				t.Errorf("race = %q, %+v, %v; want %q, %+v, %v", got.v, got.res, got.err, tc.want, tc.res, tc.err)
			}
			// raceTwo has returned, so every send it started has too.
			for name, s := range sends {
				want := false
				for _, c := range tc.cancelled {
					want = want || c == name
				}
				if s.cancelled != want {
					t.Errorf("%s send cancelled = %v, want %v", name, s.cancelled, want)
				}
			}
		})
	}
}
