// Package pluginmanifest checks a herdr-plugin.toml the way herdr 0.8's
// loader does (src/app/api/plugins/manifest.rs; docs/herdr.md §10), and
// stricter where herdr only warns: unknown keys, unknown event names and a
// missing top-level platforms list are errors here. Tests of the manifests
// we ship use it, so a manifest herdr would refuse never ships.
package pluginmanifest

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Manifest is herdr-plugin.toml.
type Manifest struct {
	ID              string    `toml:"id"`
	Name            string    `toml:"name"`
	Version         string    `toml:"version"`
	MinHerdrVersion string    `toml:"min_herdr_version"`
	Description     string    `toml:"description"`
	Platforms       *[]string `toml:"platforms"`
	Build           []Command `toml:"build"`
	Startup         []Command `toml:"startup"`
	Actions         []Action  `toml:"actions"`
	Events          []Event   `toml:"events"`
	Panes           []Pane    `toml:"panes"`
	LinkHandlers    []Link    `toml:"link_handlers"`
}

// Command is a [[build]] or [[startup]] entry.
type Command struct {
	Command   []string  `toml:"command"`
	Platforms *[]string `toml:"platforms"`
}

// Action is an [[actions]] entry.
type Action struct {
	ID          string    `toml:"id"`
	Title       string    `toml:"title"`
	Description string    `toml:"description"`
	Contexts    []string  `toml:"contexts"`
	Platforms   *[]string `toml:"platforms"`
	Command     []string  `toml:"command"`
}

// Event is an [[events]] hook.
type Event struct {
	On        string    `toml:"on"`
	Platforms *[]string `toml:"platforms"`
	Command   []string  `toml:"command"`
}

// Pane is a [[panes]] entrypoint.
type Pane struct {
	ID          string    `toml:"id"`
	Title       string    `toml:"title"`
	Description string    `toml:"description"`
	Platforms   *[]string `toml:"platforms"`
	Placement   string    `toml:"placement"`
	Width       any       `toml:"width"`
	Height      any       `toml:"height"`
	Command     []string  `toml:"command"`
}

// Link is a [[link_handlers]] entry.
type Link struct {
	ID        string    `toml:"id"`
	Title     string    `toml:"title"`
	Pattern   string    `toml:"pattern"`
	Action    string    `toml:"action"`
	Platforms *[]string `toml:"platforms"`
}

// Platforms, contexts, placements and hookable events herdr 0.8.2 accepts
// (plugin_hook_event_names in src/api/schema/events.rs).
var (
	Platforms  = []string{"linux", "macos", "windows"}
	contexts   = []string{"global", "workspace", "tab", "pane", "selection"}
	placements = []string{"", "overlay", "popup", "split", "tab", "zoomed"}
	// HookEvents are the names an [[events]] hook may use.
	HookEvents = strings.Fields(`workspace.created workspace.updated workspace.closed
		workspace.renamed workspace.moved workspace.reordered workspace.focused
		worktree.created worktree.opened worktree.removed tab.created tab.closed
		tab.renamed tab.moved tab.focused pane.created pane.closed pane.focused
		pane.moved pane.exited pane.agent_detected pane.agent_status_changed`)

	pluginID = regexp.MustCompile(`^[A-Za-z0-9:._-]{1,120}$`)
	localID  = regexp.MustCompile(`^[A-Za-z0-9:_-]{1,120}$`)
	semver   = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
)

// Parse decodes and checks text. The error lists every problem, one a line.
func Parse(text string) (*Manifest, error) {
	var m Manifest
	md, err := toml.Decode(text, &m)
	if err != nil {
		return nil, fmt.Errorf("herdr-plugin.toml: %w", err)
	}
	var p problems
	for _, k := range md.Undecoded() {
		p.add("unknown key %s", k)
	}
	p.checkTop(&m)
	p.checkActions(m.Actions)
	p.checkEvents(m.Events)
	p.checkPanes(m.Panes)
	p.checkLinks(m.LinkHandlers)
	if len(p.errs) > 0 {
		return &m, fmt.Errorf("herdr-plugin.toml: %w", errors.Join(p.errs...))
	}
	return &m, nil
}

// problems collects what is wrong with a manifest, in the order of the
// file, so that one error can list them all.
type problems struct {
	errs    []error
	actions map[string]bool // ids of the actions seen, for link handlers
}

func (p *problems) add(format string, a ...any) { p.errs = append(p.errs, fmt.Errorf(format, a...)) }

// platforms checks a platforms list; nil is no list.
func (p *problems) platforms(where string, list *[]string) {
	if list == nil {
		return
	}
	if len(*list) == 0 {
		p.add("%s: platforms = [] (omit it instead)", where)
	}
	for _, x := range *list {
		if !slices.Contains(Platforms, x) {
			p.add("%s: unknown platform %q", where, x)
		}
	}
}

func (p *problems) command(where string, argv []string) {
	if len(argv) == 0 || slices.Contains(argv, "") {
		p.add("%s: command %q: want a non-empty argv of non-empty strings", where, argv)
	}
}

// entry checks the id and title of an action or pane; seen holds the ids
// of its kind so far.
func (p *problems) entry(where, id, title string, seen map[string]bool) {
	if !localID.MatchString(strings.TrimSpace(id)) || seen[id] {
		p.add("%s: bad or duplicate id", where)
	}
	seen[id] = true
	if strings.TrimSpace(title) == "" {
		p.add("%s: no title", where)
	}
}

// checkTop checks the top-level keys and the [[build]] and [[startup]]
// commands.
func (p *problems) checkTop(m *Manifest) {
	if !pluginID.MatchString(strings.TrimSpace(m.ID)) {
		p.add("id %q: want 1-120 of [A-Za-z0-9:._-]", m.ID)
	}
	if strings.TrimSpace(m.Name) == "" || strings.TrimSpace(m.Version) == "" {
		p.add("name %q and version %q are required", m.Name, m.Version)
	}
	if !semver.MatchString(strings.TrimSpace(m.MinHerdrVersion)) {
		p.add("min_herdr_version %q: want a semantic version like 0.8.2", m.MinHerdrVersion)
	}
	if m.Platforms == nil {
		p.add("no top-level platforms (herdr warns: platform support unknown)")
	}
	p.platforms("top level", m.Platforms)
	for i, b := range m.Build {
		p.command(fmt.Sprintf("build[%d]", i), b.Command)
		p.platforms(fmt.Sprintf("build[%d]", i), b.Platforms)
	}
	for i, s := range m.Startup {
		p.command(fmt.Sprintf("startup[%d]", i), s.Command)
		p.platforms(fmt.Sprintf("startup[%d]", i), s.Platforms)
	}
}

func (p *problems) checkActions(actions []Action) {
	p.actions = map[string]bool{}
	for _, a := range actions {
		where := "action " + a.ID
		p.entry(where, a.ID, a.Title, p.actions)
		for _, c := range a.Contexts {
			if !slices.Contains(contexts, c) {
				p.add("%s: unknown context %q", where, c)
			}
		}
		p.platforms(where, a.Platforms)
		p.command(where, a.Command)
	}
}

func (p *problems) checkEvents(events []Event) {
	for i, e := range events {
		where := fmt.Sprintf("events[%d]", i)
		if !slices.Contains(HookEvents, strings.TrimSpace(e.On)) {
			p.add("%s: on = %q is no hookable event", where, e.On)
		}
		p.platforms(where, e.Platforms)
		p.command(where, e.Command)
	}
}

func (p *problems) checkPanes(panes []Pane) {
	seen := map[string]bool{}
	for _, pn := range panes {
		where := "pane " + pn.ID
		p.entry(where, pn.ID, pn.Title, seen)
		if !slices.Contains(placements, pn.Placement) {
			p.add("%s: unknown placement %q", where, pn.Placement)
		}
		if pn.Placement != "popup" && (pn.Width != nil || pn.Height != nil) {
			p.add("%s: width and height are for placement = \"popup\" only", where)
		}
		p.platforms(where, pn.Platforms)
		p.command(where, pn.Command)
	}
}

// checkLinks checks the link handlers against the actions checkActions
// saw.
func (p *problems) checkLinks(links []Link) {
	for _, l := range links {
		where := "link handler " + l.ID
		if !localID.MatchString(l.ID) || l.Title == "" || l.Pattern == "" || !p.actions[l.Action] {
			p.add("%s: needs an id, title, pattern and an action of this plugin", where)
		}
		if _, err := regexp.Compile(l.Pattern); err != nil {
			p.add("%s: pattern: %v", where, err)
		}
		p.platforms(where, l.Platforms)
	}
}

// Commands lists every argv the plugin runs after install (startup hooks,
// actions, event hooks, panes), labelled for messages.
func (m *Manifest) Commands() map[string][]string {
	out := map[string][]string{}
	for i, s := range m.Startup {
		out[fmt.Sprintf("startup[%d]", i)] = s.Command
	}
	for _, a := range m.Actions {
		out["action "+a.ID] = a.Command
	}
	for i, e := range m.Events {
		out[fmt.Sprintf("event %s [%d]", e.On, i)] = e.Command
	}
	for _, p := range m.Panes {
		out["pane "+p.ID] = p.Command
	}
	return out
}
