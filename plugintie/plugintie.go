// Package plugintie ties a daemon to the herdr plugin whose [[startup]]
// hook started it. herdr does not supervise what a startup hook leaves
// running: a daemon it started outlives the server, and outlives the
// plugin when a person unlinks or disables it, still renaming tabs for a
// plugin they removed. So a tied daemon ends itself when the plugin is
// gone from herdr's registry or disabled, and when its herdr server has
// been gone for OrphanAfter; the next server start runs the startup hook
// again.
//
// # Who calls what
//
// A Watch belongs to one goroutine, the daemon's loop, which calls Check
// every CheckEvery, runs List off the loop when Check asks for it, and
// hands its Answer to Answered. FromEnv and List are safe from any
// goroutine.
package plugintie

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// Timings of the tie.
const (
	// CheckEvery is how often a tied daemon looks at the socket and
	// registry files: two stats, no connection to herdr.
	CheckEvery = time.Second
	// OrphanAfter is how long herdr's socket may be missing before a
	// tied daemon ends: longer than a live handoff or a quick restart
	// (whose startup hook finds this daemon still running and leaves
	// it).
	OrphanAfter = 5 * time.Second
	// ListEvery spaces plugin.list calls when the registry file is
	// unknown, or after one failed.
	ListEvery = time.Minute
)

// Plugin is the plugin a daemon is tied to.
type Plugin struct {
	ID string // the plugin id herdr knows it by; "": not tied
	// Registry is herdr's plugins.json: a change of it is when the
	// plugin may have been unlinked or disabled, checked with one
	// plugin.list call. "": unknown, checked every ListEvery.
	Registry string
}

// FromEnv is the plugin a daemon started with this environment follows:
// the one whose [[startup]] hook runs it. herdr sets
// HERDR_PLUGIN_EVENT=startup and the plugin's id and config folder for
// that command. Its config folder is <herdr config>/plugins/config/<id>,
// and herdr's plugin registry is <herdr config>/plugins.json; for a
// folder of another shape the registry is left unknown and checked by
// asking herdr now and then.
func FromEnv(getenv func(string) string) Plugin {
	id := getenv("HERDR_PLUGIN_ID")
	if id == "" || getenv("HERDR_PLUGIN_EVENT") != "startup" {
		return Plugin{}
	}
	p := Plugin{ID: id}
	if dir := getenv("HERDR_PLUGIN_CONFIG_DIR"); dir != "" {
		parent := filepath.Dir(filepath.Clean(dir))
		plugins := filepath.Dir(parent)
		if filepath.Base(parent) == "config" && filepath.Base(plugins) == "plugins" {
			p.Registry = filepath.Join(filepath.Dir(plugins), "plugins.json")
		}
	}
	return p
}

// Watch follows a tied daemon's plugin and herdr server.
type Watch struct {
	plugin    Plugin
	socket    string
	stamp     safefile.Stamp
	listed    time.Time // last plugin.list call
	noList    bool      // herdr has no plugin.list: only the socket counts
	failed    bool      // the last plugin.list failed: asked again after ListEvery
	asking    bool      // a plugin.list call is on its way
	downSince time.Time
}

// NewWatch follows p for the daemon of the herdr server at socket.
func NewWatch(p Plugin, socket string) *Watch { return &Watch{plugin: p, socket: socket} }

// Check says why the plugin is gone ("" while it is not), and whether
// to ask herdr now (List) whether it is still there and enabled.
func (w *Watch) Check(now time.Time) (gone string, ask bool) {
	if _, err := os.Stat(w.socket); err != nil {
		if w.downSince.IsZero() {
			w.downSince = now
		}
		if now.Sub(w.downSince) >= OrphanAfter {
			return "herdr's socket has been gone for " + OrphanAfter.String(), false
		}
		return "", false
	}
	w.downSince = time.Time{}
	if w.noList {
		return "", false
	}
	// Asked on the first look, when the registry changed, and a minute
	// after a failed or (registry unknown) any call.
	due := w.listed.IsZero() || now.Sub(w.listed) >= ListEvery && (w.failed || w.plugin.Registry == "")
	if reg := w.plugin.Registry; reg != "" {
		st := safefile.StampPath(reg)
		if st == w.stamp && !due {
			return "", false
		}
		w.stamp = st
	} else if !due {
		return "", false
	}
	w.listed = now
	if w.asking {
		return "", false
	}
	w.asking = true
	return "", true
}

// Answer is what a plugin.list call found: why the plugin is gone (""
// while it is not), or that herdr has no such call, or that it failed.
type Answer struct {
	Gone        string
	Unsupported bool
	Err         error
}

// Answered takes a plugin.list answer in and says why the plugin is
// gone, or "" while it is not. A failed call proves nothing either way:
// it is asked again at the registry's next change or ListEvery later.
func (w *Watch) Answered(a Answer) (gone string) {
	w.asking = false
	w.noList = w.noList || a.Unsupported
	w.failed = a.Err != nil
	return a.Gone
}

// Caller is what List asks herdr through: *herdr.Client.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// List asks herdr about plugin id.
func List(ctx context.Context, c Caller, id string) Answer {
	var res struct {
		Plugins []struct {
			ID      string `json:"plugin_id"`
			Enabled bool   `json:"enabled"`
		} `json:"plugins"`
	}
	err := c.Call(ctx, "plugin.list", map[string]any{"plugin_id": id}, &res)
	if herdr.IsUnsupported(err) {
		return Answer{Unsupported: true}
	}
	if err != nil {
		return Answer{Err: err}
	}
	for _, p := range res.Plugins {
		if p.ID == id {
			if !p.Enabled {
				return Answer{Gone: "plugin " + p.ID + " is disabled"}
			}
			return Answer{}
		}
	}
	return Answer{Gone: "plugin " + id + " is no longer installed"}
}
