package daemon

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/sshhosts"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// SameDir is namer.Config.SameDir on this machine: whether fgCwd is cwd
// with its symlinks resolved. It is asked only when herdr's cwd and
// foreground_cwd differ.
func SameDir(cwd, fgCwd string) bool {
	r, err := filepath.EvalSymlinks(cwd)
	return err == nil && r == fgCwd
}

// builtinGlyphs serves {glyph} when Options.Glyphs is nil.
var builtinGlyphs, _ = glyphs.New(nil)

// programFacts fills the facts that come from the lead pane's program:
// {proc} ("@host[:remote]" for a remote shell, as the original tool shows
// it), the program's own name for rules and glyphs, {args}, {host} and
// {glyph}.
func (d *Daemon) programFacts(f *namer.Facts, plan namer.Plan, prog procinfo.Program) {
	f.Proc, f.Exe, f.Args = prog.Name, prog.Name, prog.Args
	f.ShellInFront = prog.Shell
	if prog.Dest != "" {
		if host := d.sshHost(prog.Dest); host != "" {
			f.Host = host
			f.Proc = "@" + host
			if prog.Remote != "" {
				f.Proc += ":" + prog.Remote
			}
		}
	}
	if plan.NeedsGlyph {
		table := d.opt.Glyphs
		if table == nil {
			table = builtinGlyphs
		}
		what := prog.Name
		if plan.Lead.Agent != "" {
			what = plan.Lead.Agent
		}
		f.Glyph = table.Lookup(what)
	}
}

// sshHost is the name {host} and {proc} show for an ssh destination: the
// alias ~/.ssh/config gives it, else the bare host.
func (d *Daemon) sshHost(dest string) string {
	if d.opt.SSH != nil {
		return d.opt.SSH.Display(dest)
	}
	return sshhosts.HostOf(dest)
}

// prefixPeople gives people's labels their tab position in front
// (--index-prefix-all). These renames leave the state file alone: the
// label stays a person's, so the next pass prefixes it again rather than
// taking it for ours and naming the tab after its program. Like every
// rename of ours, each looks at the tab right before and is watched for a
// person's rename landing inside it.
func (d *Daemon) prefixPeople(ctx context.Context, rows []*row, stats *PassStats) error {
	for _, r := range rows {
		rep := &r.report
		t := target{tabTarget, rep.TabID}
		now, err := d.currentLabel(ctx, t)
		if err == nil && now != rep.Label {
			// Renamed since the snapshot: the next pass prefixes that.
			rep.Action, rep.Label = ActionKeep, now
			d.noteLabel(rep.TabID, now)
			continue
		}
		if err == nil {
			// The person's text goes on disk before the rename: a label
			// of ours whose text is lost would take a person's leading
			// digit for our prefix, or the prefix for their text.
			err = d.rememberPersonText(rep.TabID, d.personText(rep.TabID, rep.Label), rep.Want,
				state.Flight{Want: rep.Want, Seen: rep.Label, Sent: d.now()})
		}
		out := renameNotSent
		if err == nil {
			out, err = d.request(ctx, t, rep.Want)
		}
		d.settle(t, rep.Want, rep.Label, out)
		if err != nil {
			rep.Action, rep.Error = ActionFailed, err.Error()
			if out == renameInFlight || herdr.IsServerGone(err) {
				return err
			}
			d.saveState([]func(map[string]state.TabMemory){dropSavedFlight(rep.TabID, rep.Want)}, nil)
			d.log.Warn("rename failed", "tab", rep.TabID, "want", rep.Want, "err", err)
			continue
		}
		stats.Renames++
		rep.Action = ActionRenamed
		d.log.Info("renamed", "tab", rep.TabID, "old", rep.Label, "new", rep.Want,
			"why", "position prefix on a person's label (--index-prefix-all)")
	}
	return nil
}

// personPrefix is the label a person's tab gets under --index-prefix-all,
// and whether that differs from its label now.
func (d *Daemon) personPrefix(tab herdr.Tab, verdict namer.Verdict, pos map[string]int) (string, bool) {
	if !d.opt.IndexPrefixAll || verdict != namer.Human {
		return "", false
	}
	want := namer.IndexPrefix(d.personText(tab.ID, tab.Label), pos[tab.ID])
	return want, want != tab.Label
}

// personText is the text a person gave a tab showing label: the label
// itself, unless it is the one we made of their text with a prefix.
func (d *Daemon) personText(tabID, label string) string {
	if m := d.state.Tabs[tabID]; m.PrefixedAs != "" && label == m.PrefixedAs {
		return m.PersonText
	}
	return label
}

// rememberPersonText records, before the rename, that prefixed is the
// person's text with our prefix, and the rename's flight.
func (d *Daemon) rememberPersonText(tabID, text, prefixed string, f state.Flight) error {
	err := d.update(func(tabs map[string]state.TabMemory) {
		m := tabs[tabID]
		m.PersonText, m.PrefixedAs = text, prefixed
		m.Flights = appendFlight(m.Flights, f)
		tabs[tabID] = m
	})
	if err != nil {
		return fmt.Errorf("not renamed: state not saved: %w", err)
	}
	return nil
}
