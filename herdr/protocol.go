package herdr

import (
	"bytes"
	"fmt"
	"strings"

	json "github.com/goccy/go-json"
)

// Protocol numbers this client knows (docs/herdr.md §1). The number is the
// TUI's wire protocol, not a JSON API version: it moves for reasons that
// never touch the JSON API, so nothing in this package branches on it. It
// only decides whether to warn that the server is unfamiliar.
const (
	OldestKnownProtocol = 16
	NewestKnownProtocol = 22
)

// knownProtocols says which herdr releases speak each protocol number
// (docs/herdr.md §1). 0.8.1 speaks 20, like 0.8.2; 18 and 21 never shipped
// in a release.
var knownProtocols = map[int]string{
	16: "0.7.2-0.7.4",
	17: "0.7.5",
	18: "preview builds between 0.7.5 and 0.8.0",
	19: "0.8.0",
	20: "0.8.1-0.8.2",
	21: "an unreleased development branch",
	22: "0.9.x",
}

// ProtocolReleases names the herdr releases that speak protocol n, and
// whether this client knows n at all.
func ProtocolReleases(n int) (string, bool) {
	r, ok := knownProtocols[n]
	return r, ok
}

// Capabilities is ping's capabilities object (herdr's ServerCapabilities,
// docs/herdr.md §4). The fields herdr has defined so far are typed; a nil
// pointer means absent, null, or of a type this client does not expect.
// Anything else, including a known key with a surprising value, is kept
// undecoded in Other, so a newer herdr's additions never break Ping.
type Capabilities struct {
	LiveHandoff          *bool // since 0.7
	DetachedServerDaemon *bool // since 0.7
	// EndpointProtocolGeneration is the generation client-owned shells
	// negotiate (0.9.0+, observed 1); herdr allows null.
	EndpointProtocolGeneration *int
	SurfaceInterest            *bool // 0.9.0+
	HealthCheck                *bool // 0.9.0+

	// Other holds every key not decoded above, as the server sent it.
	Other map[string]json.RawMessage
	// Raw is the whole capabilities value as sent, for diagnostics.
	Raw json.RawMessage
}

// UnmarshalJSON accepts any JSON value. Only an object contributes fields;
// a string, number or array (which herdr never sends) leaves everything nil
// but Raw, because a ping must not fail over a field the client only reads
// for information.
func (c *Capabilities) UnmarshalJSON(b []byte) error {
	// Own copy first: the decoder may reuse b, and Raw and Other keep
	// slices of it.
	*c = Capabilities{Raw: append(json.RawMessage(nil), b...)}
	b = bytes.TrimSpace(c.Raw)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	bools := map[string]**bool{
		"live_handoff":           &c.LiveHandoff,
		"detached_server_daemon": &c.DetachedServerDaemon,
		"surface_interest":       &c.SurfaceInterest,
		"health_check":           &c.HealthCheck,
	}
	for k, v := range m {
		if dst, ok := bools[k]; ok {
			var x *bool
			if json.Unmarshal(v, &x) == nil {
				*dst = x
				continue
			}
		}
		if k == "endpoint_protocol_generation" {
			var x *int
			if json.Unmarshal(v, &x) == nil {
				c.EndpointProtocolGeneration = x
				continue
			}
		}
		if c.Other == nil {
			c.Other = map[string]json.RawMessage{}
		}
		c.Other[k] = v
	}
	return nil
}

// warnProtocol logs, once per Client whatever happens later, that the
// server speaks a protocol this client does not know. The client carries on
// with the newest shapes it knows: herdr has only ever added fields, and
// unknown ones are ignored.
func (c *Client) warnProtocol(p Pong) {
	if _, ok := knownProtocols[p.Protocol]; ok || c.warned.Swap(true) {
		return
	}
	rel := "newer"
	if p.Protocol < OldestKnownProtocol {
		rel = "older"
	}
	known := make([]string, 0, len(knownProtocols))
	for n := OldestKnownProtocol; n <= NewestKnownProtocol; n++ {
		known = append(known, fmt.Sprint(n))
	}
	c.log.Warn(fmt.Sprintf("herdr protocol is %s than this client knows; carrying on with the protocol %d shapes", rel, NewestKnownProtocol),
		"protocol", p.Protocol, "version", p.Version, "known", strings.Join(known, ", "), "socket", c.path)
}
