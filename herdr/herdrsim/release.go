package herdrsim

import (
	"fmt"
	"slices"
	"strings"
)

// release is one herdr build as the simulator plays it: what ping reports,
// and which protocol's behaviour and schema it follows (docs/herdr.md §1).
type release struct {
	version  string
	protocol int // reported by ping and session.snapshot
	plays    int // behaviour and schema: 17, 19, 20 or 22
}

// releases are the herdr releases people run, oldest first. 0.8.2 is the
// first to report its own version on protocol 20; every 0.9.x speaks 22.
var releases = []release{
	{"0.7.5", 17, 17},
	{"0.8.0", 19, 19},
	{"0.8.2", 20, 20},
	{"0.9.0", 22, 22},
	{"0.9.1", 22, 22},
	{"0.9.2", 22, 22},
	{"0.9.3", 22, 22},
}

// Releases lists the versions WithRelease accepts, oldest first.
func Releases() []string {
	out := make([]string, len(releases))
	for i, r := range releases {
		out[i] = r.version
	}
	return out
}

// defaultRelease is the release a bare protocol number plays. 22 plays
// 0.9.1, the release protocol-22.schema.json describes; 21 only ever
// existed on a development branch between 0.8.2 and 0.9.0, so it behaves
// like 20; a number above 22 is an unknown newer herdr that behaves like 22.
func defaultRelease(p int) (release, error) {
	switch {
	case p == 17:
		return releases[0], nil
	case p == 19:
		return releases[1], nil
	case p == 20:
		return releases[2], nil
	case p == 21:
		return release{"0.8.2", 21, 20}, nil
	case p == 22:
		return releases[4], nil
	case p > 22:
		return release{"0.10.0", p, 22}, nil
	}
	return release{}, fmt.Errorf("protocol %d is not played: use 17, 19, 20, 22 or a newer number", p)
}

// resolveRelease picks the release from WithRelease and WithProtocol.
func resolveRelease(version string, protocol int) (release, error) {
	if version == "" {
		return defaultRelease(protocol)
	}
	i := slices.IndexFunc(releases, func(r release) bool { return r.version == version })
	if i < 0 {
		return release{}, fmt.Errorf("release %q is not played: use one of %s", version, strings.Join(Releases(), ", "))
	}
	r := releases[i]
	if protocol != 0 && protocol != r.protocol {
		return release{}, fmt.Errorf("release %s speaks protocol %d, not %d: drop WithProtocol or pick a matching release", version, r.protocol, protocol)
	}
	return r, nil
}

// atLeast reports whether the release is v or newer; unknown newer
// protocols count as newer than every listed release.
func (r release) atLeast(v string) bool {
	if r.plays > NewestProtocol || r.protocol > NewestProtocol {
		return true
	}
	return compareVersions(r.version, v) >= 0
}

func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(pa), len(pb)) {
		var x, y int
		if i < len(pa) {
			fmt.Sscan(pa[i], &x)
		}
		if i < len(pb) {
			fmt.Sscan(pb[i], &y)
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// live reports the 0.9 event model: subscriptions start live (no replay),
// the retained backlog is drained in bursts, a subscription that fell out
// of the retained window gets events_lost, and a pane exit that empties a
// tab or workspace announces it (docs/herdr.md §7).
func (r release) live() bool { return r.plays >= 22 }

// stopGuard reports 0.8.2's shutdown handling: server.stop is answered on
// the socket thread and every later request but ping gets
// server_unavailable (docs/herdr.md §3).
func (r release) stopGuard() bool { return r.atLeast("0.8.2") }

// titleGlyphs are the activity glyphs herdr strips from the front of a
// terminal title besides braille spinners; 0.8.2 added the quarter circles
// (docs/herdr.md §8).
func (r release) titleGlyphs() string {
	if r.atLeast("0.8.2") {
		return "·✢✳✶✻✽◐◓◑◒"
	}
	return "·✢✳✶✻✽"
}
