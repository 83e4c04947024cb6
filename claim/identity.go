package claim

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Identity is what tells one herdr server process from another behind
// the same socket.
type Identity struct {
	// Peer is the socket's peer process, "<pid>@<start in ms>"; "" when
	// the kernel does not say (Windows, another pid namespace).
	Peer string
	// PeerName is the peer's command name; PeerHerdr says it is herdr
	// itself rather than a forwarder, whose life says nothing of herdr's.
	PeerName  string
	PeerHerdr bool
	// Terminals are the terminal ids of the session's panes, by pane id.
	Terminals map[string]string
}

// Identify reads the identity of the server at socket, whose session is
// snap.
func Identify(ctx context.Context, socket string, snap *herdr.Snapshot) Identity {
	id := Identity{Terminals: map[string]string{}}
	for _, p := range snap.Panes {
		if p.TerminalID != "" {
			id.Terminals[p.ID] = p.TerminalID
		}
	}
	peer, err := procinfo.ServerInstance(ctx, socket)
	if err != nil {
		return id
	}
	id.Peer = peer
	var pid int32
	if _, err := fmt.Sscanf(peer, "%d@", &pid); err == nil {
		if p, err := process.NewProcessWithContext(ctx, pid); err == nil {
			id.PeerName, _ = p.NameWithContext(ctx)
			exe, _ := p.ExeWithContext(ctx)
			id.PeerHerdr = isHerdr(id.PeerName) || isHerdr(filepath.Base(exe))
		}
	}
	return id
}

// isHerdr says whether a command name is herdr's (herdr, herdr-dev, a
// versioned build), not a forwarder's.
func isHerdr(name string) bool {
	return name == "herdr" || strings.HasPrefix(name, "herdr-") || strings.HasPrefix(name, "herdr.")
}

// Verdict is what Compare makes of an identity.
type Verdict uint8

const (
	// Same: the memory describes this server.
	Same Verdict = iota
	// Restarted: another server process serves the socket now.
	Restarted
	// Unknown: nothing tells (no pane in common, and the socket's peer
	// is a forwarder or not known).
	Unknown
)

// Compare says whether the memory of server was describes the server now.
// A pane known to both that runs another terminal now is a restart
// whatever forwards the socket; panes in common that all run their
// terminals are the same server. With none in common only a peer that is
// herdr itself tells.
func Compare(was state.Server, now Identity) (Verdict, string) {
	common := 0
	for pane, term := range now.Terminals {
		old := was.Terminals[pane]
		if old == "" {
			continue
		}
		if old != term {
			return Restarted, fmt.Sprintf("pane %s runs terminal %s, was %s: herdr's server started again", pane, term, old)
		}
		common++
	}
	switch {
	case common > 0:
		return Same, ""
	case was.Peer == "" && len(was.Terminals) == 0:
		return Same, "" // nothing remembered to tell by
	case now.PeerHerdr && was.Peer != "":
		if now.Peer != was.Peer {
			return Restarted, "another herdr server process (" + now.Peer + ", was " + was.Peer + ") serves the socket"
		}
		return Same, ""
	case now.Peer == "":
		return Unknown, "the kernel does not name the socket's server process, and no pane of the session was seen before"
	}
	return Unknown, fmt.Sprintf("the socket is served by %s (pid %s), not herdr itself (a forwarder?), and no pane of the session was seen before",
		orUnknown(now.PeerName), strings.SplitN(now.Peer, "@", 2)[0])
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown process"
	}
	return s
}

// Result is what Check found and did.
type Result struct {
	Verdict Verdict
	Why     string
	// Kept and Forgot count the targets whose memory a restart (or an
	// identity that cannot be told) kept and forgot.
	Kept, Forgot int
	// Changed: the memory changed (a restart, or a server newly seen).
	Changed bool
	// Revalidated: the memory was of a server that is gone, or may be;
	// only what still shows it was kept, and no rename sent to that
	// server is followed any more.
	Revalidated bool
}

// Check compares the server at socket, whose session is snap, with the
// one mem describes. When it restarted, or that cannot be told, only the
// memory of targets that show what is remembered of them stays (a
// restored session), which errs on the side of a person's name: a label
// remembered as ours that a new tab happens to show is kept, nothing
// else; a label pending at is ours where it shows. The identity seen is
// recorded, saved with write, in memory only without (explain).
func Check(ctx context.Context, socket string, snap *herdr.Snapshot, mem *state.State, write bool, at time.Time) (Result, error) {
	now := Identify(ctx, socket, snap)
	was := mem.Server()
	var res Result
	res.Verdict, res.Why = Compare(was, now)
	remembered := was.Peer != "" || len(was.Terminals) > 0
	if res.Verdict == Same && now.Peer == was.Peer && maps.Equal(now.Terminals, was.Terminals) {
		return res, nil
	}
	res.Changed = true
	apply := func(tx *state.Tx) {
		if res.Verdict != Same && remembered {
			res.Revalidated = true
			res.Kept, res.Forgot = tx.Revalidate(owner.Shows(snap), at, owner.Same)
		}
		tx.SetServer(state.Server{Peer: now.Peer, Terminals: now.Terminals})
	}
	if !write {
		mem.InMemory(apply)
		return res, nil
	}
	return res, mem.Update(apply)
}
