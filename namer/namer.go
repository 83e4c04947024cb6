package namer

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Defaults the daemon uses when the user sets nothing.
const (
	DefaultFormat = "{proc|dir}"
	DefaultMaxLen = 24
)

// Config is everything the naming engine is configured with.
type Config struct {
	Format string     // template; "" = DefaultFormat
	MaxLen int        // display columns; 0 = no limit
	Icons  string     // icon spec (ParseIcons); "" = defaults
	Rules  []RuleSpec // override rules, first match wins
	Home   string     // home directory, for "~"
	// HideDefaultBranch empties {branch} on the repository's default
	// branch (Facts.DefaultBranch).
	HideDefaultBranch bool
	// SameDir reports whether fgCwd is cwd with its symlinks resolved
	// (nil: never). herdr's cwd is the path a shell reports with OSC 7,
	// symlinks kept; foreground_cwd is read from /proc, resolved.
	SameDir func(cwd, fgCwd string) bool
	// Ignore are the quick commands (globs on the program name) that
	// never name a tab; nil is DefaultIgnore, empty ignores nothing.
	// ExtendIgnore adds to it (the pair is flake8's ignore and
	// extend-ignore: replace the defaults, or keep them and add).
	Ignore, ExtendIgnore []string
	// Panes: the namer names panes, one at a time (PlanPane): a rule's
	// pane-format is its format, a skip rule skips, a name rule does not
	// apply.
	Panes bool
}

// Namer holds a compiled Config. It is immutable and safe for concurrent use.
type Namer struct {
	cfg         Config
	home        string
	tmpl        *Template
	icons       Icons
	rules       []*rule
	programRule bool // some rule has a program glob
	quick       quickList
}

// New compiles cfg; every template, icon and rule error surfaces here.
func New(cfg Config) (*Namer, error) {
	if cfg.Format == "" {
		cfg.Format = DefaultFormat
	}
	if cfg.MaxLen < 0 {
		return nil, fmt.Errorf("max-len %d: must be 0 (no limit) or more", cfg.MaxLen)
	}
	if cfg.Ignore == nil {
		cfg.Ignore = DefaultIgnore()
	}
	n := &Namer{cfg: cfg}
	var err error
	if n.quick, err = compileQuick(cfg.Ignore, cfg.ExtendIgnore); err != nil {
		return nil, err
	}
	if cfg.Home != "" {
		n.home = path.Clean(cfg.Home)
		if n.home == "/" || !path.IsAbs(n.home) {
			return nil, fmt.Errorf("home directory %q: must be an absolute path other than /", cfg.Home)
		}
	}
	t, err := ParseTemplate(cfg.Format)
	if err != nil {
		return nil, fmt.Errorf("format: %w", err)
	}
	n.tmpl = t
	if n.icons, err = ParseIcons(cfg.Icons); err != nil {
		return nil, err
	}
	for i, spec := range cfg.Rules {
		r, err := compileRule(i, spec, n.home, cfg.Panes)
		if err != nil {
			return nil, err
		}
		n.rules = append(n.rules, r)
		n.programRule = n.programRule || r.program != nil
	}
	return n, nil
}

// Config returns the configuration n was built from, with defaults filled.
func (n *Namer) Config() Config { return n.cfg }

// UsesStatus says whether an agent's status can show in a name: the
// template or a rule's refers to {icon} or {status}. Without them a status
// change renames nothing, and nobody need look for one.
func (n *Namer) UsesStatus() bool {
	uses := n.tmpl.uses
	for _, r := range n.rules {
		uses |= r.uses()
	}
	return uses&(1<<kIcon|1<<kStatus) != 0
}

// Plan is what Namer knows about a tab before the caller gathers facts.
type Plan struct {
	Tab       herdr.Tab
	Workspace herdr.Workspace
	Lead      herdr.Pane
	LeadWhy   string
	// Dir is the lead pane's cleaned foreground_cwd (the directory of the
	// program in front, docs/herdr.md §9), else its cwd; {dir}, {cwd},
	// {repo}, {branch} and the rules use it.
	Dir  string
	Rule *RuleMatch // first dir-only rule that matched; Decide re-checks program rules
	// Which caller-supplied facts the template, or any rule that may still
	// apply once {proc} is known, refers to. NeedsProc is false when the lead
	// has an agent: such a pane has no {proc}. NeedsGlyph: the caller looks
	// up Facts.Glyph (of the program, or of the agent). NeedsSession: the
	// lead has an agent and an agent session, and {session} is used; the
	// caller reads Facts.Session.
	NeedsProc, NeedsHost, NeedsRepo, NeedsBranch, NeedsGlyph, NeedsSession bool
}

// Plan picks the lead pane of a tab and the dir-only rule, and says which
// facts Decide will need. panes are the tab's panes.
func (n *Namer) Plan(tab herdr.Tab, ws herdr.Workspace, panes []herdr.Pane) Plan {
	p := Plan{Tab: tab, Workspace: ws}
	p.Lead, p.LeadWhy, _ = Lead(panes)
	// The program's own directory, as the original tool shows it: `npm
	// run dev` started in ~/src/api that runs in ~/src/api/frontend is
	// "frontend". At an idle prompt foreground_cwd is the shell's.
	cwd := p.Lead.ForegroundCwd
	if cwd == "" || cwd != p.Lead.Cwd && p.Lead.Cwd != "" && n.cfg.SameDir != nil && n.cfg.SameDir(p.Lead.Cwd, cwd) {
		// The same place, as the shell names it: ~/work/x, not
		// /mnt/ssd/work/x, so rules on ~/work still match.
		cwd = p.Lead.Cwd
	}
	if cwd != "" {
		p.Dir = path.Clean(cwd)
	}
	agent := p.Lead.Agent != ""
	var uses uint32
	chosen := false
	for _, r := range n.rules {
		if r.program != nil {
			// Undecided until {proc} is known; its template may be used.
			if !agent {
				if _, ok := r.matchDir(p.Dir); ok {
					p.NeedsProc = true
					uses |= r.uses()
				}
			}
			continue
		}
		if m, ok := r.match(p.Dir, "", ""); ok {
			p.Rule = m
			uses |= r.uses()
			chosen = true
			break
		}
	}
	if !chosen {
		uses |= n.tmpl.uses
	}
	// A program working in another directory than the shell's names the
	// tab after that directory, unless it is a quick command or the shell
	// itself is in front: which runs decides the name, whatever the
	// template.
	moved := p.Lead.Cwd != "" && cwd != p.Lead.Cwd
	p.NeedsProc = !agent && (p.NeedsProc || moved || uses&(1<<kProc|1<<kArgs|1<<kGlyph) != 0)
	p.NeedsHost = uses&(1<<kHost) != 0
	p.NeedsRepo = uses&(1<<kRepo) != 0
	p.NeedsBranch = uses&(1<<kBranch|1<<kTicket) != 0
	p.NeedsGlyph = uses&(1<<kGlyph) != 0
	p.NeedsSession = agent && p.Lead.AgentSession != nil && uses&(1<<kSession) != 0
	return p
}

func (r *rule) uses() uint32 {
	if r.format != nil {
		return r.format.uses
	}
	return 0
}

// Facts are the values the caller computes outside namer.
type Facts struct {
	Proc string // {proc}: program of the lead pane (procinfo), "@host:cmd" for ssh; ignored when it has an agent
	// Exe is the program's own name when Proc shows something else
	// (ssh for "@zmb"): rules' program globs match either.
	Exe    string
	Args   string // {args}: the program with its arguments; ignored with an agent
	Host   string // ssh destination alias
	Repo   string // git work tree name
	Branch string // git branch
	// DefaultBranch is the repository's default branch, for
	// Config.HideDefaultBranch.
	DefaultBranch string
	Glyph         string // {glyph} of the program, or of the agent
	// Index is the tab's 1-based position in its workspace (0: unknown);
	// {index} shows 1-9, the positions herdr's alt+1..9 jump to.
	Index int
	// Session is {session}: the title of the lead pane's agent session
	// (facts/session), ignored without an agent.
	Session string
	// ShellInFront says the pane's own shell leads its foreground process
	// group: the tab is named from the shell's directory (herdr's cwd).
	// herdr up to 0.8 reports as foreground_cwd the cwd of any other member
	// of that group, such as a background job started while the shell had
	// no job control yet, which is no program in front.
	ShellInFront bool
}

// Decision is what Decide concluded for one tab.
type Decision struct {
	Want     string            // sanitised, truncated name; "" = nothing to say, do not rename
	Skip     bool              // a skip rule matched: never rename this tab
	Rule     *RuleMatch        // the rule that decided, nil for the plain template
	Values   map[string]string // every token's value, for explain
	Variants []string          // renders that count as ours (package owner), Want included
}

// Front is the plan and facts a tab is named from, given what is in
// front: with the pane's own shell or a quick command there, the shell's
// directory (and for the command, no program). Decide applies it; a
// caller that gathers facts by the plan's directory ({repo}, {branch})
// applies it first, to look in the same place.
func (n *Namer) Front(p Plan, f Facts) (Plan, Facts) {
	switch {
	case f.ShellInFront:
		return n.shellPlan(p), f
	case n.quickProgram(p, f):
		// A quick command is gone before its name could be read: name
		// the tab as with the shell in front, so no rename goes out now
		// and none goes back when it exits.
		return n.shellPlan(p), asShell(f)
	}
	return p, f
}

// Decide renders the name of a planned tab from the facts.
func (n *Namer) Decide(p Plan, f Facts) Decision {
	p, f = n.Front(p, f)
	var vs values
	n.fill(&vs, p, f)
	rm, r := p.Rule, n.ruleAt(p.Rule)
	if n.programRule && vs.v[kProc] != "" {
		rm, r = nil, nil
		exe := ""
		if p.Lead.Agent == "" {
			exe = Sanitize(f.Exe)
		}
		for _, cand := range n.rules {
			if m, ok := cand.match(p.Dir, vs.v[kProc], exe); ok {
				rm, r = m, cand
				break
			}
		}
	}
	if rm != nil {
		vs.v[kMatch] = Sanitize(rm.Match)
	}
	d := Decision{Rule: rm, Values: vs.asMap()}
	switch {
	case r != nil && r.skip:
		d.Skip = true
		return d
	case r != nil && r.name != "":
		d.Want = Truncate(r.name, n.cfg.MaxLen)
		d.Variants = []string{d.Want}
		return d
	}
	t := n.tmpl
	if r != nil {
		t = r.format
	}
	var buf [128]byte
	d.Want = n.finish(t.render(&vs, buf[:0]))
	d.Variants = n.variants(t, vs, p, d.Want)
	return d
}

func (n *Namer) ruleAt(m *RuleMatch) *rule {
	if m == nil || m.Index < 1 || m.Index > len(n.rules) {
		return nil
	}
	return n.rules[m.Index-1]
}

// finish sanitises and truncates a raw render.
func (n *Namer) finish(raw []byte) string {
	return Truncate(Sanitize(string(raw)), n.cfg.MaxLen)
}

// fill computes every built-in token value for p and f, sanitised.
func (n *Namer) fill(vs *values, p Plan, f Facts) {
	lead := &p.Lead
	if lead.Agent == "" {
		vs.v[kProc] = Sanitize(f.Proc)
	}
	vs.v[kAgent] = Sanitize(lead.Agent)
	vs.v[kDir] = Sanitize(n.dirName(p.Dir))
	vs.v[kCwd] = Sanitize(n.tildePath(p.Dir))
	if vs.v[kTitle] = Sanitize(lead.Title); vs.v[kTitle] == "" {
		vs.v[kTitle] = Sanitize(lead.TerminalTitleStripped)
	}
	if lead.Agent == "" {
		vs.v[kArgs] = Sanitize(f.Args)
	} else {
		vs.v[kTask] = Task(*lead)
		vs.v[kSession] = Sanitize(f.Session)
	}
	vs.v[kGlyph] = Sanitize(f.Glyph)
	if f.Index >= 1 && f.Index <= 9 {
		vs.v[kIndex] = strconv.Itoa(f.Index)
	}
	st := p.Tab.AgentStatus
	if statusIndex(st) != statusIndex(herdr.StatusUnknown) {
		vs.v[kStatus] = string(st)
	}
	vs.v[kIcon] = n.icons.Icon(st)
	if p.Tab.Number > 0 {
		vs.v[kNumber] = strconv.Itoa(p.Tab.Number)
	}
	vs.v[kHost] = Sanitize(f.Host)
	vs.v[kRepo] = Sanitize(f.Repo)
	vs.v[kTicket] = Sanitize(Ticket(f.Branch))
	if !n.cfg.HideDefaultBranch || f.Branch != f.DefaultBranch || f.Branch == "" {
		vs.v[kBranch] = Sanitize(f.Branch)
	}
	vs.v[kWorkspace] = Sanitize(p.Workspace.Label)
	vs.tokens = lead.Tokens
}

func (vs *values) asMap() map[string]string {
	m := make(map[string]string, int(kToken)+len(vs.tokens))
	for k := kProc; k < kToken; k++ {
		m[kindNames[k]] = vs.v[k]
	}
	for name, v := range vs.tokens {
		m["token."+name] = Sanitize(v)
	}
	return m
}

// dirName is {dir}: the basename, "~" for home, "/" for the root.
func (n *Namer) dirName(dir string) string {
	switch {
	case dir == "":
		return ""
	case n.home != "" && dir == n.home:
		return "~"
	}
	return path.Base(dir)
}

// tildePath is {cwd}: the path with the home directory shown as "~".
func (n *Namer) tildePath(dir string) string {
	if n.home != "" {
		if dir == n.home {
			return "~"
		}
		if rest, ok := strings.CutPrefix(dir, n.home); ok && strings.HasPrefix(rest, "/") {
			return "~" + rest
		}
	}
	return dir
}

// variants renders t under every status, with and without {proc} and with
// and without {agent}: names we may have set in this tab's current
// situation. Only the dimensions t refers to are varied.
func (n *Namer) variants(t *Template, vs values, p Plan, want string) []string {
	out := make([]string, 0, 4)
	if want != "" {
		out = append(out, want)
	}
	nStatus := 1
	if t.uses1(kStatus) || t.uses1(kIcon) {
		nStatus = len(statuses)
	}
	procs := [2]string{vs.v[kProc], ""}
	agents := [2]string{vs.v[kAgent], ""}
	nProc, nAgent := 1, 1
	if t.uses1(kProc) && procs[0] != "" {
		nProc = 2
	}
	if t.uses1(kAgent) && agents[0] != "" {
		nAgent = 2
	}
	var buf [128]byte
	if t.uses1(kIndex) {
		// herdr renumbers tabs as others are created, moved and closed:
		// the same name at any other position (or none, from the tenth
		// on) was ours too, even when the state file forgot it.
		at := vs
		for i := 0; i <= MaxIndex; i++ {
			at.v[kIndex] = ""
			if i > 0 {
				at.v[kIndex] = strconv.Itoa(i)
			}
			if v := n.finish(t.render(&at, buf[:0])); v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	for si := range nStatus {
		if nStatus > 1 {
			st := statuses[si]
			vs.v[kStatus] = ""
			if st != herdr.StatusUnknown {
				vs.v[kStatus] = string(st)
			}
			vs.v[kIcon] = n.icons.Icon(st)
		}
		for pi := range nProc {
			vs.v[kProc] = procs[pi]
			for ai := range nAgent {
				vs.v[kAgent] = agents[ai]
				raw := t.render(&vs, buf[:0])
				if v := n.finish(raw); v != "" && !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
