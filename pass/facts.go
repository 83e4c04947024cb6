package pass

import (
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/sshhosts"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
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
func (p *Planner) programFacts(f *namer.Facts, plan namer.Plan, prog procinfo.Program) {
	f.Proc, f.Exe, f.Args = prog.Name, prog.Name, prog.Args
	f.ShellInFront = prog.Shell
	if prog.Dest != "" {
		if host := p.sshHost(prog.Dest); host != "" {
			f.Host = host
			f.Proc = "@" + host
			if prog.Remote != "" {
				f.Proc += ":" + prog.Remote
			}
		}
	}
	if plan.NeedsGlyph {
		table := p.cfg.Glyphs
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
func (p *Planner) sshHost(dest string) string {
	if p.cfg.SSH != nil {
		return p.cfg.SSH.Display(dest)
	}
	return sshhosts.HostOf(dest)
}
