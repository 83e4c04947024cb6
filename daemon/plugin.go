package daemon

import (
	"context"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
	"os"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Plugin ties a daemon to the herdr plugin whose [[startup]] hook started
// it. herdr does not supervise what a startup hook leaves running: a
// daemon it started outlives the server, and outlives the plugin when a
// person unlinks or disables it, still renaming tabs for a plugin they
// removed. So a tied daemon ends itself when the plugin is gone from
// herdr's registry or disabled, and when its herdr server has been gone for
// pluginOrphanAfter; the next server start runs the startup hook again.
type Plugin struct {
	ID string // the plugin id herdr knows it by; "": not tied
	// Registry is herdr's plugins.json: a change of it is when the
	// plugin may have been unlinked or disabled, checked with one
	// plugin.list call. "": unknown, checked every pluginListEvery.
	Registry string
}

// pluginWatch is what the loop keeps to follow its plugin.
type pluginWatch struct {
	stamp     safefile.Stamp
	listed    time.Time // last plugin.list call
	noList    bool      // herdr has no plugin.list: only the socket counts
	failed    bool      // the last plugin.list failed: asked again after pluginListEvery
	asking    bool      // a plugin.list call is on its way
	downSince time.Time
}

// pluginGone says why the daemon's plugin is gone, or "" while it is not.
func (l *loop) pluginGone() string {
	d, w := l.d, &l.plugin
	now := d.now()
	if _, err := os.Stat(d.opt.Socket); err != nil {
		if w.downSince.IsZero() {
			w.downSince = now
		}
		if now.Sub(w.downSince) >= pluginOrphanAfter {
			return "herdr's socket has been gone for " + pluginOrphanAfter.String()
		}
		return ""
	}
	w.downSince = time.Time{}
	if w.noList {
		return ""
	}
	// Asked on the first look, when the registry changed, and a minute
	// after a failed or (registry unknown) any call.
	due := w.listed.IsZero() || now.Sub(w.listed) >= pluginListEvery && (w.failed || d.opt.Plugin.Registry == "")
	if reg := d.opt.Plugin.Registry; reg != "" {
		st := safefile.StampPath(reg)
		if st == w.stamp && !due {
			return ""
		}
		w.stamp = st
	} else if !due {
		return ""
	}
	w.listed = now
	l.askPluginList()
	return ""
}

// pluginEnds says whether the daemon ends because its plugin is gone
// (why is not ""), and logs why.
func (l *loop) pluginEnds(why string) bool {
	if why != "" {
		l.d.log.Info("the herdr plugin that started this daemon is gone; exiting", "why", why)
	}
	return why != ""
}

// pluginAnswer is what a plugin.list call found: why the plugin is gone
// ("" while it is not), or that herdr has no such call, or that it failed.
type pluginAnswer struct {
	gone        string
	unsupported bool
	err         error
}

// askPluginList asks herdr, off the loop, whether the plugin is still
// there and enabled; the loop hears the answer on pluginAnswers.
func (l *loop) askPluginList() {
	d, w := l.d, &l.plugin
	if w.asking {
		return
	}
	w.asking = true
	id, timeout, client := d.opt.Plugin.ID, d.opt.Timeout, d.client
	go func() {
		ctx, cancel := context.WithTimeout(l.ctx, timeout)
		defer cancel()
		a := listPlugin(ctx, client, id)
		select {
		case l.pluginAnswers <- a:
		case <-l.ctx.Done():
		}
	}()
}

// listPlugin asks herdr about plugin id.
func listPlugin(ctx context.Context, client *herdr.Client, id string) pluginAnswer {
	var res struct {
		Plugins []struct {
			ID      string `json:"plugin_id"`
			Enabled bool   `json:"enabled"`
		} `json:"plugins"`
	}
	err := client.Call(ctx, "plugin.list", map[string]any{"plugin_id": id}, &res)
	if herdr.IsUnsupported(err) {
		return pluginAnswer{unsupported: true}
	}
	if err != nil {
		return pluginAnswer{err: err}
	}
	for _, p := range res.Plugins {
		if p.ID == id {
			if !p.Enabled {
				return pluginAnswer{gone: "plugin " + p.ID + " is disabled"}
			}
			return pluginAnswer{}
		}
	}
	return pluginAnswer{gone: "plugin " + id + " is no longer installed"}
}

// pluginAnswered takes a plugin.list answer in and says why the plugin is
// gone, or "" while it is not.
func (l *loop) pluginAnswered(a pluginAnswer) string {
	w := &l.plugin
	w.asking = false
	w.noList = w.noList || a.unsupported
	w.failed = a.err != nil
	if a.err != nil {
		// Asked again at the registry's next change or a minute later:
		// a failed call proves nothing either way.
		l.d.log.Debug("plugin.list failed", "err", a.err)
	}
	return a.gone
}
