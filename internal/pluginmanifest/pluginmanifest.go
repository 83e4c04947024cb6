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
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	for _, k := range md.Undecoded() {
		bad("unknown key %s", k)
	}
	if !pluginID.MatchString(strings.TrimSpace(m.ID)) {
		bad("id %q: want 1-120 of [A-Za-z0-9:._-]", m.ID)
	}
	if strings.TrimSpace(m.Name) == "" || strings.TrimSpace(m.Version) == "" {
		bad("name %q and version %q are required", m.Name, m.Version)
	}
	if !semver.MatchString(strings.TrimSpace(m.MinHerdrVersion)) {
		bad("min_herdr_version %q: want a semantic version like 0.8.2", m.MinHerdrVersion)
	}
	platforms := func(where string, p *[]string) {
		if p == nil {
			return
		}
		if len(*p) == 0 {
			bad("%s: platforms = [] (omit it instead)", where)
		}
		for _, x := range *p {
			if !slices.Contains(Platforms, x) {
				bad("%s: unknown platform %q", where, x)
			}
		}
	}
	command := func(where string, argv []string) {
		if len(argv) == 0 || slices.Contains(argv, "") {
			bad("%s: command %q: want a non-empty argv of non-empty strings", where, argv)
		}
	}
	if m.Platforms == nil {
		bad("no top-level platforms (herdr warns: platform support unknown)")
	}
	platforms("top level", m.Platforms)
	for i, b := range m.Build {
		command(fmt.Sprintf("build[%d]", i), b.Command)
		platforms(fmt.Sprintf("build[%d]", i), b.Platforms)
	}
	for i, s := range m.Startup {
		command(fmt.Sprintf("startup[%d]", i), s.Command)
		platforms(fmt.Sprintf("startup[%d]", i), s.Platforms)
	}
	ids := map[string]bool{}
	for _, a := range m.Actions {
		where := "action " + a.ID
		if !localID.MatchString(strings.TrimSpace(a.ID)) || ids[a.ID] {
			bad("%s: bad or duplicate id", where)
		}
		ids[a.ID] = true
		if strings.TrimSpace(a.Title) == "" {
			bad("%s: no title", where)
		}
		for _, c := range a.Contexts {
			if !slices.Contains(contexts, c) {
				bad("%s: unknown context %q", where, c)
			}
		}
		platforms(where, a.Platforms)
		command(where, a.Command)
	}
	for i, e := range m.Events {
		where := fmt.Sprintf("events[%d]", i)
		if !slices.Contains(HookEvents, strings.TrimSpace(e.On)) {
			bad("%s: on = %q is no hookable event", where, e.On)
		}
		platforms(where, e.Platforms)
		command(where, e.Command)
	}
	panes := map[string]bool{}
	for _, p := range m.Panes {
		where := "pane " + p.ID
		if !localID.MatchString(strings.TrimSpace(p.ID)) || panes[p.ID] {
			bad("%s: bad or duplicate id", where)
		}
		panes[p.ID] = true
		if strings.TrimSpace(p.Title) == "" {
			bad("%s: no title", where)
		}
		if !slices.Contains(placements, p.Placement) {
			bad("%s: unknown placement %q", where, p.Placement)
		}
		if p.Placement != "popup" && (p.Width != nil || p.Height != nil) {
			bad("%s: width and height are for placement = \"popup\" only", where)
		}
		platforms(where, p.Platforms)
		command(where, p.Command)
	}
	for _, l := range m.LinkHandlers {
		where := "link handler " + l.ID
		if !localID.MatchString(l.ID) || l.Title == "" || l.Pattern == "" || !ids[l.Action] {
			bad("%s: needs an id, title, pattern and an action of this plugin", where)
		}
		if _, err := regexp.Compile(l.Pattern); err != nil {
			bad("%s: pattern: %v", where, err)
		}
		platforms(where, l.Platforms)
	}
	if len(errs) > 0 {
		return &m, fmt.Errorf("herdr-plugin.toml: %w", errors.Join(errs...))
	}
	return &m, nil
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
