package daemon

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// Every rename the daemon sends can overwrite a person's: a tab's name, a
// position prefix on a person's label, a workspace's name. Each goes
// through the same look right before, and the same put-back when a
// person's rename (through herdr's API) lands while ours is on its way, on
// a replaying protocol and on one that does not replay.

// whileStalled holds the next request of method in herdr for a second and
// runs person once herdr has it, so the person's change lands after every
// read of the pass and before our change.
func whileStalled(t *testing.T, f *fixture, method string, person func()) {
	t.Helper()
	before := f.srv.Calls(method)
	f.srv.StallNext(method, time.Second, 1)
	go func() {
		if testutil.Poll(testutil.Timeout, func() bool { return f.srv.Calls(method) > before }) {
			person()
		}
	}()
}

// shortProtocols is protocols, or only the first of them under -short:
// the quick loop tests one replaying protocol, CI all of them.
func shortProtocols(protocols ...int) []int {
	if testing.Short() {
		return protocols[:1]
	}
	return protocols
}

func logOnFailure(t *testing.T, f *fixture) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(f.log.String())
		}
	})
}

// A person's label gets its position in front (--index-prefix-all); the
// person renames the tab while that rename is on its way. Their new text
// wins, and gets its prefix at the next pass.
func TestPrefixRenameKeepsAPersonsRename(t *testing.T) {
	t.Parallel()
	for _, proto := range shortProtocols(20, 22) {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			f := newFixture(t, "{dir}", func(o *Options) { o.Naming.IndexPrefixAll = true }, herdrsim.WithProtocol(proto))
			logOnFailure(t, f)
			_, _, p := f.srv.NewWorkspace("main", home+"/a")
			tab := f.srv.Snapshot().Tabs[0].ID
			f.srv.HumanRename(tab, "notes")
			whileStalled(t, f, "tab.rename", func() { f.srv.HumanRename(tab, "todo") })
			runDaemon(t, f, nil)
			waitFor(t, "the person's text put back", func() bool {
				return slices.ContainsFunc(f.srv.Renames(), func(r herdrsim.Rename) bool { return r.Label == "todo" })
			})
			sendRaw(t, nudge.SocketPath(f.srv.SocketPath()), mustEncode(t, p))
			waitFor(t, "the person's text prefixed", func() bool { return f.labels()[0] == "1 todo" })
		})
	}
}

// Our workspace rename (--workspace-format) replaces herdr's automatic
// label; a person renames the workspace while it is on its way.
func TestWorkspaceRenameKeepsAPersonsRename(t *testing.T) {
	t.Parallel()
	for _, proto := range shortProtocols(20, 22) {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			f := newFixture(t, "{dir}", withWorkspaces(t, "{index} {dir}"), herdrsim.WithProtocol(proto))
			logOnFailure(t, f)
			f.srv.NewWorkspace("", home+"/src/api")
			whileStalled(t, f, "workspace.rename", func() {
				if _, err := herdr.New(f.srv.SocketPath()).RenameWorkspace(context.Background(), "w1", "shop"); err != nil {
					t.Error(err)
				}
			})
			runDaemon(t, f, nil)
			waitFor(t, "the person's workspace name put back", func() bool {
				rs := f.srv.WorkspaceRenames()
				return len(rs) >= 3 && rs[len(rs)-1].Label == "shop"
			})
			f.wantWorkspaces("shop")
		})
	}
}

// People's labels that begin with a digit and a space are their text, not
// a prefix of ours: --index-prefix-all puts the position in front of the
// whole label, and after a move replaces only the prefix it put there
// itself, which the state file remembers with the text it went in front
// of.
func TestPrefixKeepsLabelsThatBeginWithADigit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", func(o *Options) { o.Naming.IndexPrefixAll = true })
	ws, first, _ := f.srv.NewWorkspace("main", home+"/a")
	// Through the API: herdr's UI would trim "7 ".
	c := herdr.New(f.srv.SocketPath())
	var tabs []string
	for _, l := range []string{"3 amigos", "1 on 1 notes", "7 ", "5 whys"} {
		tab, _ := f.srv.NewTab(ws, home+"/b")
		if _, err := c.RenameTab(context.Background(), tab, l); err != nil {
			t.Fatal(err)
		}
		tabs = append(tabs, tab)
	}
	if _, err := c.RenameTab(context.Background(), first, "0 day"); err != nil {
		t.Fatal(err)
	}
	f.once()
	f.wantLabels("1 0 day", "2 3 amigos", "3 1 on 1 notes", "4 7 ", "5 5 whys")
	f.srv.CloseTab(first)
	f.once()
	f.wantLabels("1 3 amigos", "2 1 on 1 notes", "3 7 ", "4 5 whys")
	for i, want := range []string{"3 amigos", "1 on 1 notes", "7 ", "5 whys"} {
		if m := f.d.State().Tab(tabs[i]); m.PersonText != want {
			t.Errorf("tab %s remembers the person's text %q, want %q", tabs[i], m.PersonText, want)
		}
	}
}

// A person renames a tab while every snapshot of the pass that would
// rename it is held 600 ms in herdr: the look right before our rename sees
// their name, on every protocol, in each of ten trials.
func TestPersonRenameDuringAHeldSnapshotIsKept(t *testing.T) {
	t.Parallel()
	trials, protocols := 10, []int{17, 19, 20, 22}
	if testing.Short() {
		trials, protocols = 3, []int{20, 22}
	}
	for _, proto := range protocols {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			f := newFixture(t, "{dir}", nil, herdrsim.WithProtocol(proto))
			logOnFailure(t, f)
			ws, first, p0 := f.srv.NewWorkspace("main", home+"/a0")
			tabs, panes := []string{first}, []string{p0}
			for i := 1; i < trials; i++ {
				tab, p := f.srv.NewTab(ws, fmt.Sprintf("%s/a%d", home, i))
				tabs, panes = append(tabs, tab), append(panes, p)
			}
			runDaemon(t, f, nil)
			waitFor(t, "first names", func() bool { return f.labels()[trials-1] == fmt.Sprintf("a%d", trials-1) })
			f.srv.SetLatency("session.snapshot", 600*time.Millisecond)
			sock := nudge.SocketPath(f.srv.SocketPath())
			for i := range trials {
				snaps := f.srv.Calls("session.snapshot")
				f.srv.SetCwd(panes[i], fmt.Sprintf("%s/b%d", home, i))
				sendRaw(t, sock, mustEncode(t, panes[i]))
				waitFor(t, "the pass's snapshot", func() bool { return f.srv.Calls("session.snapshot") > snaps })
				f.srv.HumanRename(tabs[i], fmt.Sprintf("person %d", i))
			}
			f.srv.SetLatency("session.snapshot", 0)
			// Passes run one after another: two more read the session
			// only once every trial's pass is done.
			for range 2 {
				snaps := f.srv.Calls("session.snapshot")
				sendRaw(t, sock, mustEncode(t, panes[0]))
				waitFor(t, "a later pass", func() bool { return f.srv.Calls("session.snapshot") > snaps })
			}
			for i, l := range f.labels() {
				if l != fmt.Sprintf("person %d", i) {
					t.Errorf("tab %d shows %q", i, l)
				}
			}
		})
	}
}
