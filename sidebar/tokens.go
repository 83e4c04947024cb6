// Package sidebar puts the facts the daemon names by in herdr's own
// sidebar: for every agent's pane, the values of the template tokens a
// person chose (config sidebar-tokens) are reported as herdr pane metadata
// tokens under our own source, which herdr's agent rows can show
// (`[ui.sidebar.agents] rows`, "$htr_branch"). It remembers what it
// reported per pane and sends only what changed: a value the pane no
// longer has is cleared, a pane gone is forgotten. herdr's token keys
// are one namespace for every source (docs/herdr.md §15), so ours carry
// a prefix of their own: restore and a changed list clear exactly ours.
package sidebar

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// Source is the source our reports name (pane.report_metadata).
const Source = "herdrtabrenamer"

// Prefix starts every token key of ours: "htr_branch" for {branch}.
const Prefix = "htr_"

// Names are the template tokens a pane's sidebar rows may show: an agent
// pane's own facts. {proc}, {args} and {host} are a program's, which an
// agent's pane has none of; {match} is a rule's and {token.NAME} herdr's
// own.
var Names = []string{"agent", "task", "session", "status", "icon", "glyph", "title",
	"dir", "cwd", "repo", "branch", "ticket", "workspace", "number", "index"}

// maxPerPane is herdr's cap on the tokens one pane holds, every
// source's together, and codeNoRoom its answer to a report that would
// go over it (metadata_token_limit in src/app/api/panes.rs@v0.8.2).
const (
	maxPerPane = 32
	codeNoRoom = "metadata_token_limit"
)

// maxValue is herdr's cap on a token value, in characters.
const maxValue = 80

// Check refuses a token name that is not one of Names, and a name given
// twice.
func Check(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if !slices.Contains(Names, n) {
			return fmt.Errorf("unknown token %q (want some of: %s)", n, strings.Join(Names, " "))
		}
		if seen[n] {
			return fmt.Errorf("token %q is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}

// Format is the template whose render needs every one of names: the
// namer then gathers each fact they show, and its Values carry them.
func Format(names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString("{" + n + "}")
	}
	return b.String()
}

// Key is the metadata token key that shows the template token name.
func Key(name string) string { return Prefix + name }

// Clean is a value as herdr stores it: trimmed, without control
// characters, cut at 80 characters and trimmed again; "" clears the key.
// A value compared uncleaned would differ from herdr's copy at every pass.
func Clean(v string) string {
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(v))
	if r := []rune(v); len(r) > maxValue {
		v = string(r[:maxValue])
	}
	return strings.TrimSpace(v)
}

// ours is the tokens of ours among a pane's.
func ours(tokens map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tokens {
		if strings.HasPrefix(k, Prefix) {
			out[k] = v
		}
	}
	return out
}

// wanted is the keys and cleaned values a pane's sidebar should show,
// from its token values by name; an empty value shows nothing.
func wanted(values map[string]string) map[string]string {
	out := map[string]string{}
	for n, v := range values {
		if v = Clean(v); v != "" {
			out[Key(n)] = v
		}
	}
	return out
}

// patch is what turns have into want: the keys set anew or changed, and
// the keys of have that want lacks, cleared (nil).
func patch(have, want map[string]string) map[string]*string {
	out := map[string]*string{}
	for k, v := range want {
		if have[k] != v {
			out[k] = &v
		}
	}
	for k := range have {
		if _, ok := want[k]; !ok {
			out[k] = nil
		}
	}
	return out
}

// maxPerReport is herdr's limit of keys a request sets or clears.
const maxPerReport = 16

// Report is one pane.report_metadata request: a pane's keys to set, and
// to clear (nil).
type Report struct {
	Pane   string
	Tokens map[string]*string
}

// String shows a report as the dry run prints it: keys in order, a
// cleared one as null.
func (r Report) String() string {
	var b strings.Builder
	b.WriteString(r.Pane)
	for _, k := range slices.Sorted(maps.Keys(r.Tokens)) {
		if v := r.Tokens[k]; v == nil {
			fmt.Fprintf(&b, " %s=null", k)
		} else {
			fmt.Fprintf(&b, " %s=%q", k, *v)
		}
	}
	return b.String()
}

// split cuts a pane's patch into reports herdr takes, keys in order.
func split(pane string, p map[string]*string) []Report {
	var out []Report
	keys := slices.Sorted(maps.Keys(p))
	for len(keys) > 0 {
		n := min(len(keys), maxPerReport)
		r := Report{Pane: pane, Tokens: make(map[string]*string, n)}
		for _, k := range keys[:n] {
			r.Tokens[k] = p[k]
		}
		out = append(out, r)
		keys = keys[n:]
	}
	return out
}
