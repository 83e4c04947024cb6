package sidebar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Pane is one pane as a pass saw it: what its sidebar should show and
// what herdr's snapshot says it shows.
type Pane struct {
	ID string
	// Values are the chosen tokens' values by token name; nil for a pane
	// with no agent, whose sidebar shows nothing of ours.
	Values map[string]string
	// Shows are the pane's metadata tokens in the snapshot, every
	// source's.
	Shows map[string]string
}

// API is what a Reporter asks of herdr: *herdr.Client.
type API interface {
	ReportMetadata(ctx context.Context, paneID, source string, tokens map[string]*string) error
}

// Reporter remembers what it reported of each pane, so that only what
// changed is sent and herdr's pane.updated for our own report is known
// for ours. One goroutine at a time uses it (the daemon's loop).
type Reporter struct {
	api API
	// sent is each pane's tokens of ours as we last reported them (a dry
	// run: as we last printed them).
	sent map[string]map[string]string
	// refused are the reports herdr refused for want of room (its
	// limit of tokens per pane), by pane: not sent again while the pane
	// shows what it showed then.
	refused map[string]refusal
}

// refusal is a report herdr refused, and the tokens its pane showed.
type refusal struct {
	report string // Report.String
	shows  map[string]string
	err    error
}

// New makes a Reporter that reports through api.
func New(api API) *Reporter {
	return &Reporter{api: api, sent: map[string]map[string]string{}, refused: map[string]refusal{}}
}

// Plan is the reports that bring each pane's sidebar to its values,
// none for a pane that shows them. With apply, what a pane shows is what
// herdr's snapshot says: herdr keeps no token across a restart, so what
// a restart lost goes again at the next pass, and a pane first seen
// keeps what a daemon before us reported. A dry run sends nothing, so
// what it printed stands for what was sent.
func (r *Reporter) Plan(panes []Pane, apply bool) []Report {
	var out []Report
	for _, p := range panes {
		have, known := r.sent[p.ID]
		if apply || !known {
			have = ours(p.Shows)
		}
		for _, rep := range split(p.ID, patch(have, wanted(p.Values))) {
			if f, ok := r.refused[p.ID]; ok && f.report == rep.String() && maps.Equal(f.shows, p.Shows) {
				continue // refused, and nothing changed since: herdr would refuse it again
			}
			out = append(out, rep)
		}
	}
	return out
}

// Pass forgets the panes gone from snap, plans the panes' reports and
// sends them; a dry run (apply false) prints each instead, once, as
// "would report sidebar tokens PANE KEY=VALUE ...". It returns how many
// reports herdr took.
func (r *Reporter) Pass(ctx context.Context, snap *herdr.Snapshot, panes []Pane, apply bool, out io.Writer) (int, error) {
	if len(panes) == 0 && len(r.sent) == 0 {
		return 0, nil // tokens off: a pass costs nothing here
	}
	live := make(map[string]bool, len(snap.Panes))
	for _, p := range snap.Panes {
		live[p.ID] = true
	}
	for id := range r.sent {
		if !live[id] {
			delete(r.sent, id)
		}
	}
	for id := range r.refused {
		if !live[id] {
			delete(r.refused, id)
		}
	}
	reps := r.Plan(panes, apply)
	if !apply {
		for _, rep := range reps {
			fmt.Fprintf(out, "would report sidebar tokens %s\n", rep)
			r.took(rep)
		}
		return 0, nil
	}
	shows := make(map[string]map[string]string, len(panes))
	for _, p := range panes {
		shows[p.ID] = p.Shows
	}
	return r.send(ctx, reps, shows)
}

// Send sends the reports in order and remembers each herdr took. A pane
// herdr no longer has is forgotten, and its report no failure.
func (r *Reporter) Send(ctx context.Context, reps []Report) (int, error) {
	return r.send(ctx, reps, nil)
}

// send is Send, with what each pane showed when its reports were
// planned: a report herdr refuses for want of room is remembered with
// it, and the error says so once (a *RefusedError).
func (r *Reporter) send(ctx context.Context, reps []Report, shows map[string]map[string]string) (int, error) {
	n := 0
	var errs []error
	for _, rep := range reps {
		err := r.api.ReportMetadata(ctx, rep.Pane, Source, rep.Tokens)
		switch {
		case errors.Is(err, herdr.ErrPaneNotFound):
			delete(r.sent, rep.Pane)
			delete(r.refused, rep.Pane)
		case isNoRoom(err):
			others := len(others(shows[rep.Pane]))
			f := refusal{report: rep.String(), shows: maps.Clone(shows[rep.Pane]), err: &RefusedError{Report: rep, Others: others, Err: err}}
			r.refused[rep.Pane] = f
			errs = append(errs, f.err)
		case err != nil:
			errs = append(errs, fmt.Errorf("sidebar tokens of pane %s: %w", rep.Pane, err))
		default:
			n++
			r.took(rep)
			delete(r.refused, rep.Pane)
		}
	}
	return n, errors.Join(errs...)
}

// Refused is why herdr refuses our tokens now, nil when it takes them
// all: one error per pane whose report it refused for want of room, and
// that has not changed since.
func (r *Reporter) Refused() error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(r.refused)) {
		errs = append(errs, r.refused[id].err)
	}
	return errors.Join(errs...)
}

// RefusedError is a report herdr refused because the pane would hold more
// tokens than herdr allows one pane (docs/herdr.md §15), most of them
// other tools'.
type RefusedError struct {
	Report Report
	Others int // the pane's tokens of other sources
	Err    error
}

func (e *RefusedError) Error() string {
	keys := slices.Sorted(maps.Keys(e.Report.Tokens))
	return fmt.Sprintf("herdr refused sidebar tokens %s of pane %s: a pane holds at most %d tokens, and other tools hold %d of them on it",
		strings.Join(keys, ", "), e.Report.Pane, maxPerPane, e.Others)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// isNoRoom: herdr refused a report because the pane would hold too many
// tokens.
func isNoRoom(err error) bool {
	var ae *herdr.APIError
	return errors.As(err, &ae) && ae.Code == codeNoRoom
}

// took remembers a report as what its pane shows now.
func (r *Reporter) took(rep Report) {
	m := r.sent[rep.Pane]
	if m == nil {
		m = map[string]string{}
		r.sent[rep.Pane] = m
	}
	for k, v := range rep.Tokens {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = *v
		}
	}
}

// Forget drops the memory of every pane: herdr's server is another, whose
// panes show none of it.
func (r *Reporter) Forget() { clear(r.sent); clear(r.refused) }

// Echo reports whether upd, a pane.updated's pane, is the pane last
// seen (old) with our own tokens changed to what we last reported, and
// nothing else but its revision: herdr's answer to our report, which
// changes no name and is no reason for a pass.
func (r *Reporter) Echo(old, upd herdr.Pane) bool {
	if r == nil {
		return false
	}
	sent, ok := r.sent[upd.ID]
	if !ok || old.ID != upd.ID || maps.Equal(ours(old.Tokens), sent) || !maps.Equal(ours(upd.Tokens), sent) {
		return false
	}
	if !maps.Equal(others(old.Tokens), others(upd.Tokens)) {
		return false
	}
	old.Tokens, upd.Tokens = nil, nil
	old.Revision = upd.Revision
	return reflect.DeepEqual(old, upd)
}

// ShowsOurs says whether a pane's tokens hold one of ours.
func ShowsOurs(tokens map[string]string) bool {
	for k := range tokens {
		if strings.HasPrefix(k, Prefix) {
			return true
		}
	}
	return false
}

// Retry reports whether upd, a pane.updated's pane, is a pane whose
// report herdr refused for want of room and whose tokens changed since:
// ours may fit now, which is news.
func (r *Reporter) Retry(upd herdr.Pane) bool {
	if r == nil {
		return false
	}
	f, ok := r.refused[upd.ID]
	return ok && !maps.Equal(f.shows, upd.Tokens)
}

// others is the tokens of other sources among a pane's.
func others(tokens map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tokens {
		if !strings.HasPrefix(k, Prefix) {
			out[k] = v
		}
	}
	return out
}

// Clear is the reports that clear every token of ours the panes show:
// restore's undo, whatever the token list was when they were reported.
func Clear(panes []herdr.Pane) []Report {
	var out []Report
	for _, p := range panes {
		out = append(out, split(p.ID, patch(ours(p.Tokens), nil))...)
	}
	return out
}
