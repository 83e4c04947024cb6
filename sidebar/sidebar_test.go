package sidebar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		names []string
		bad   string // in the error; "" for none
	}{
		{nil, ""},
		{[]string{"branch", "task", "session"}, ""},
		{Names, ""},
		{[]string{"proc"}, `unknown token "proc"`},
		{[]string{"token.x"}, `unknown token "token.x"`},
		{[]string{"branch", "branch"}, `"branch" is listed twice`},
	} {
		err := Check(tt.names)
		if (err == nil) != (tt.bad == "") || err != nil && !strings.Contains(err.Error(), tt.bad) {
			t.Errorf("Check(%q) = %v, want %q", tt.names, err, tt.bad)
		}
	}
	if len(Names) > maxPerReport {
		t.Errorf("%d names: over herdr's %d keys a report", len(Names), maxPerReport)
	}
}

func TestClean(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"main", "main"},
		{"  fix the bug\t", "fix the bug"},
		{"a\x1bb\nc", "abc"},
		{" \x01 " + strings.Repeat("y", 80), strings.Repeat("y", 79)},
		{strings.Repeat("é", 81), strings.Repeat("é", 80)},
		{" \x02 ", ""},
	} {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	if got := Format([]string{"branch", "task"}); got != "{branch}{task}" {
		t.Errorf("Format = %q", got)
	}
}

// fakeAPI records reports; fail answers a pane's with an error.
type fakeAPI struct {
	got  []string
	fail map[string]error
}

func (f *fakeAPI) ReportMetadata(_ context.Context, pane, source string, tokens map[string]*string) error {
	if source != Source {
		return fmt.Errorf("source %q", source)
	}
	if err := f.fail[pane]; err != nil {
		return err
	}
	f.got = append(f.got, Report{Pane: pane, Tokens: tokens}.String())
	return nil
}

func reports(rs []Report) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

func TestPlan(t *testing.T) {
	for _, tt := range []struct {
		name  string
		sent  map[string]map[string]string
		pane  Pane
		apply bool
		want  string
	}{
		{"new values", nil, Pane{ID: "p", Values: map[string]string{"branch": "main", "task": ""}}, true, `p htr_branch="main"`},
		{"shown already", nil, Pane{ID: "p", Values: map[string]string{"branch": "main"}, Shows: map[string]string{"htr_branch": "main"}}, true, ``},
		{"changed", nil, Pane{ID: "p", Values: map[string]string{"branch": "dev"}, Shows: map[string]string{"htr_branch": "main"}}, true, `p htr_branch="dev"`},
		{"no longer there", nil, Pane{ID: "p", Values: map[string]string{"branch": ""}, Shows: map[string]string{"htr_branch": "main", "k": "v"}}, true, `p htr_branch=null`},
		{"no agent: ours cleared, others' kept", nil, Pane{ID: "p", Shows: map[string]string{"htr_task": "x", "model": "m"}}, true, `p htr_task=null`},
		{"a key no longer listed", nil, Pane{ID: "p", Values: map[string]string{"task": "t"}, Shows: map[string]string{"htr_task": "t", "htr_repo": "r"}}, true, `p htr_repo=null`},
		{"herdr lost what we sent (a restart)", map[string]map[string]string{"p": {"htr_task": "t"}}, Pane{ID: "p", Values: map[string]string{"task": "t"}}, true, `p htr_task="t"`},
		{"dry run: shown once", map[string]map[string]string{"p": {"htr_task": "t"}}, Pane{ID: "p", Values: map[string]string{"task": "t"}}, false, ``},
		{"dry run: new pane", nil, Pane{ID: "p", Values: map[string]string{"task": "t"}}, false, `p htr_task="t"`},
		{"value cleaned as herdr does", nil, Pane{ID: "p", Values: map[string]string{"task": " t\x01 "}, Shows: map[string]string{"htr_task": "t"}}, true, ``},
	} {
		r := New(&fakeAPI{})
		for k, v := range tt.sent {
			r.sent[k] = v
		}
		got := strings.Join(reports(r.Plan([]Pane{tt.pane}, tt.apply)), "\n")
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSplitAt16(t *testing.T) {
	p := map[string]*string{}
	for i := range 20 {
		p[fmt.Sprintf("htr_k%02d", i)] = nil
	}
	rs := split("p", p)
	if len(rs) != 2 || len(rs[0].Tokens) != 16 || len(rs[1].Tokens) != 4 {
		t.Errorf("split 20 keys: %v", reports(rs))
	}
}

func TestPass(t *testing.T) {
	api := &fakeAPI{fail: map[string]error{"gone": &herdr.APIError{Code: "pane_not_found", Message: "no pane"}}}
	r := New(api)
	snap := &herdr.Snapshot{Panes: []herdr.Pane{{ID: "p1"}, {ID: "gone"}}}
	panes := []Pane{{ID: "p1", Values: map[string]string{"task": "t"}}, {ID: "gone", Values: map[string]string{"task": "u"}}}
	n, err := r.Pass(context.Background(), snap, panes, true, nil)
	if n != 1 || err != nil || len(r.sent) != 1 || r.sent["p1"]["htr_task"] != "t" {
		t.Fatalf("Pass = %d, %v; sent %v", n, err, r.sent)
	}
	// p1 closed: forgotten, with no request.
	if n, err := r.Pass(context.Background(), &herdr.Snapshot{}, nil, true, nil); n != 0 || err != nil || len(r.sent) != 0 {
		t.Fatalf("after p1 closed: %d, %v; sent %v", n, err, r.sent)
	}
	api.fail["p1"] = errors.New("boom")
	if _, err := r.Pass(context.Background(), snap, panes[:1], true, nil); err == nil || !strings.Contains(err.Error(), "p1") {
		t.Errorf("a failed report: %v", err)
	}
	var out bytes.Buffer
	dry := New(api)
	for range 2 {
		if _, err := dry.Pass(context.Background(), snap, panes[:1], false, &out); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.String(); got != "would report sidebar tokens p1 htr_task=\"t\"\n" {
		t.Errorf("dry run printed %q", got)
	}
	if len(api.got) != 1 {
		t.Errorf("herdr got %v, want the one report", api.got)
	}
}

func TestEcho(t *testing.T) {
	base := herdr.Pane{ID: "p", Revision: 3, Title: "claude", Tokens: map[string]string{"model": "m"}}
	with := func(rev uint64, tokens map[string]string, edit func(*herdr.Pane)) herdr.Pane {
		p := base
		p.Revision, p.Tokens = rev, tokens
		if edit != nil {
			edit(&p)
		}
		return p
	}
	sent := map[string]string{"htr_task": "t"}
	for _, tt := range []struct {
		name string
		upd  herdr.Pane
		want bool
	}{
		{"our report", with(4, map[string]string{"model": "m", "htr_task": "t"}, nil), true},
		{"another value than ours", with(4, map[string]string{"model": "m", "htr_task": "u"}, nil), false},
		{"another source's token too", with(4, map[string]string{"model": "n", "htr_task": "t"}, nil), false},
		{"the title too", with(4, map[string]string{"model": "m", "htr_task": "t"}, func(p *herdr.Pane) { p.Title = "x" }), false},
		{"nothing of ours changed", with(4, map[string]string{"model": "m"}, nil), false},
		{"another pane", with(4, map[string]string{"model": "m", "htr_task": "t"}, func(p *herdr.Pane) { p.ID = "q" }), false},
	} {
		r := New(&fakeAPI{})
		r.sent["p"], r.sent["q"] = sent, sent
		if got := r.Echo(base, tt.upd); got != tt.want {
			t.Errorf("%s: Echo = %v, want %v", tt.name, got, tt.want)
		}
	}
	var none *Reporter
	if none.Echo(base, base) {
		t.Error("a nil Reporter's Echo")
	}
}

func TestClear(t *testing.T) {
	panes := []herdr.Pane{
		{ID: "a", Tokens: map[string]string{"htr_task": "t", "htr_branch": "b", "model": "m"}},
		{ID: "b", Tokens: map[string]string{"model": "m"}},
		{ID: "c"},
	}
	got := strings.Join(reports(Clear(panes)), "\n")
	if got != "a htr_branch=null htr_task=null" {
		t.Errorf("Clear = %q", got)
	}
}

// TestARefusedReportIsNotRetried: herdr refuses a report for want of room
// (other tools' tokens fill its 32); the refusal is said once, in the
// error of that pass and in Refused for as long as it lasts, and the
// report goes again only once the pane or what we would report changes.
func TestARefusedReportIsNotRetried(t *testing.T) {
	full := map[string]string{}
	for i := range 31 {
		full[fmt.Sprintf("k%02d", i)] = "v"
	}
	api := &fakeAPI{fail: map[string]error{"p": &herdr.APIError{Code: "metadata_token_limit", Message: "pane metadata may contain at most 32 tokens"}}}
	r := New(api)
	snap := &herdr.Snapshot{Panes: []herdr.Pane{{ID: "p"}}}
	panes := []Pane{{ID: "p", Values: map[string]string{"agent": "claude", "dir": "zebra"}, Shows: full}}
	_, err := r.Pass(context.Background(), snap, panes, true, nil)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Others != 31 || !strings.Contains(err.Error(), "htr_agent, htr_dir") {
		t.Fatalf("first pass: %v", err)
	}
	api.fail["p"] = nil
	r.api = &countingAPI{fakeAPI: api, n: new(int)}
	for range 3 {
		if n, err := r.Pass(context.Background(), snap, panes, true, nil); n != 0 || err != nil {
			t.Fatalf("a pass at rest: %d, %v", n, err)
		}
	}
	if n := *r.api.(*countingAPI).n; n != 0 {
		t.Fatalf("the refused report went %d more times", n)
	}
	if r.Refused() == nil {
		t.Fatal("Refused says nothing while the refusal lasts")
	}
	delete(full, "k00")
	panes[0].Shows = full
	if n, err := r.Pass(context.Background(), snap, panes, true, nil); n != 1 || err != nil || r.Refused() != nil {
		t.Fatalf("after the other tool cleared one: %d, %v, refused %v", n, err, r.Refused())
	}
}

// countingAPI counts the reports sent through it.
type countingAPI struct {
	*fakeAPI
	n *int
}

func (c *countingAPI) ReportMetadata(ctx context.Context, pane, source string, tokens map[string]*string) error {
	*c.n++
	return c.fakeAPI.ReportMetadata(ctx, pane, source, tokens)
}
