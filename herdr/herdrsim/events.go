package herdrsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// hubEvent is one entry of herdr's EventHub ring.
type hubEvent struct {
	seq    uint64
	kind   string // snake_case, e.g. tab_renamed
	paneID string
	data   map[string]any // includes "type"
	line   []byte         // the bus line, alphabetical keys
}

// hub is the per-server ring of the last 512 events (docs/herdr.md §7).
type hub struct {
	events []hubEvent
	seq    uint64
}

func (h *hub) push(e hubEvent) {
	h.seq++
	e.seq = h.seq
	h.events = append(h.events, e)
	if len(h.events) > eventRingCapacity {
		h.events = slices.Clone(h.events[len(h.events)-eventRingCapacity:])
	}
}

// toValue turns a wire struct into plain maps, so that re-encoding sorts
// every object's keys the way serde_json::Value does on the event stream.
func toValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("herdrsim: encode event field: %v", err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		panic(fmt.Sprintf("herdrsim: decode event field: %v", err))
	}
	return out
}

// emit publishes a bus event; s.mu held. Fields with nil values are left
// out, like herdr's skip_serializing_if.
func (s *Server) emit(kind string, fields map[string]any) {
	data := map[string]any{"type": kind}
	for k, v := range fields {
		if v == nil {
			continue
		}
		data[k] = toValue(v)
	}
	line, err := json.Marshal(map[string]any{"data": data, "event": kind})
	if err != nil {
		panic(fmt.Sprintf("herdrsim: encode event: %v", err))
	}
	s.check(LineEvent, line)
	paneID, _ := data["pane_id"].(string)
	s.hub.push(hubEvent{kind: kind, paneID: paneID, data: data, line: line})
}

// snake turns a subscription type into its bus event name.
func snake(t string) string { return strings.ReplaceAll(t, ".", "_") }

// presentation is what a per-pane pane.agent_status_changed subscription
// compares between polls.
type presentation struct {
	status  herdr.AgentStatus
	agent   string
	title   string
	display string
	labels  string
}

func (p *pane) presentation() presentation {
	keys := slices.Sorted(maps.Keys(p.stateLabels))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\x00", k, p.stateLabels[k])
	}
	return presentation{status: p.agentStatus(), agent: p.agent, title: p.metaTitle, display: p.metaDisplay, labels: b.String()}
}

// statusData is the payload of pane_agent_status_changed (both dialects).
func (p *pane) statusData() map[string]any {
	d := map[string]any{"pane_id": p.id, "workspace_id": p.tab.ws.id, "agent_status": string(p.agentStatus())}
	if p.agent != "" {
		d["agent"] = p.agent
	}
	if p.metaTitle != "" {
		d["title"] = p.metaTitle
	}
	if p.metaDisplay != "" {
		d["display_agent"] = p.metaDisplay
	}
	if len(p.stateLabels) > 0 {
		d["state_labels"] = maps.Clone(p.stateLabels)
	}
	return d
}

// subscription is one entry of an events.subscribe request.
type subscription struct {
	kind    string // dotted type
	bus     string // snake name for bus kinds, "" for per-pane kinds
	pane    *pane
	filter  herdr.AgentStatus
	cursor  uint64
	last    presentation
	initial bool
}

// lostHistory reports whether events this subscription has not looked at
// yet were evicted from the ring; s.mu held.
func (s *Server) lostHistory(sub *subscription) bool {
	usesHub := sub.bus != "" || (sub.kind == "pane.agent_status_changed" && !sub.pane.gone)
	return usesHub && len(s.hub.events) > 0 && s.hub.events[0].seq > sub.cursor+1
}

// round returns the lines one subscription sends in one round of the
// stream loop; s.mu held (docs/herdr.md §7). Up to 20 that is at most one
// event, and a cursor that fell out of the ring silently skips what was
// evicted. On 22 it is every retained event past the cursor (a burst), and
// a cursor that fell out of the ring means lost: events_lost, nothing sent.
func (s *Server) round(sub *subscription) (lines [][]byte, lost bool) {
	if s.held {
		return nil, false
	}
	defer func() {
		if len(lines) > 0 {
			s.rounds++
		}
	}()
	live := s.rel.live()
	if live && s.lostHistory(sub) {
		return nil, true
	}
	if live {
		// herdr's cursor moves past everything it looked at, matching or not.
		defer func() { sub.cursor = s.hub.seq }()
	}
	switch {
	case sub.bus != "":
		return s.busRound(sub, live), false
	case sub.kind != "pane.agent_status_changed" || sub.pane.gone:
		// output_matched and scroll_changed watch screen contents and
		// scrolling, which the fake does not have; a vanished pane
		// leaves its subscription quiet forever, as in herdr.
		return nil, false
	}
	return s.paneRound(sub, live), false
}

// busRound is round for a bus kind: the events of that kind past the
// cursor, only the first of them before 22; s.mu held.
func (s *Server) busRound(sub *subscription, live bool) [][]byte {
	var lines [][]byte
	for _, e := range s.hub.events {
		if e.seq > sub.cursor && e.kind == sub.bus {
			sub.cursor = e.seq
			lines = append(lines, e.line)
			if !live {
				break
			}
		}
	}
	return lines
}

// paneRound is round for pane.agent_status_changed: the pane's events past
// the cursor that pass the filter, only the first of them before 22, else
// what a look at the pane shows; s.mu held.
func (s *Server) paneRound(sub *subscription, live bool) [][]byte {
	var lines [][]byte
	for _, e := range s.hub.events {
		if e.seq <= sub.cursor || e.kind != "pane_agent_status_changed" || e.paneID != sub.pane.id {
			continue
		}
		sub.cursor = e.seq
		sub.last, sub.initial = sub.pane.presentation(), false
		data := maps.Clone(e.data)
		delete(data, "type")
		if sub.filter == "" || data["agent_status"] == string(sub.filter) {
			lines = append(lines, s.paneLine(data))
			if !live {
				return lines
			}
		}
	}
	if len(lines) > 0 {
		return lines
	}
	return s.pollPane(sub)
}

// pollPane is what a subscription sends when no event of its pane came:
// herdr asks its app thread for the pane (pane_get), every tick, for as
// long as the entry lives, and sends the pane's status when it differs
// from what it last sent or, on the first look, matches the filter; s.mu
// held.
func (s *Server) pollPane(sub *subscription) [][]byte {
	s.panePolls++
	now := sub.pane.presentation()
	if sub.initial {
		sub.initial = false
		if now.status == sub.filter {
			return [][]byte{s.paneLine(sub.pane.statusData())}
		}
	}
	if now != sub.last {
		sub.last = now
		if sub.filter == "" || now.status == sub.filter {
			return [][]byte{s.paneLine(sub.pane.statusData())}
		}
	}
	return nil
}

func (s *Server) paneLine(data map[string]any) []byte {
	line, err := json.Marshal(map[string]any{"data": data, "event": "pane.agent_status_changed"})
	if err != nil {
		panic(fmt.Sprintf("herdrsim: encode event: %v", err))
	}
	s.check(LineSubscriptionEvent, line)
	return line
}

// parseSubscriptions validates every entry before any is set up, the way
// serde rejects the whole request.
func (s *Server) parseSubscriptions(req *request) ([]*subscription, []string, error) {
	raw, ok := req.Params["subscriptions"]
	if !ok {
		return nil, nil, serdeAt(req.line, "missing field `subscriptions`")
	}
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, serdeAt(req.line, "invalid type: %s, expected a sequence of subscriptions", describeJSON(raw))
	}
	subs := make([]*subscription, len(entries))
	paneIDs := make([]string, len(entries))
	for i, e := range entries {
		if e == nil {
			return nil, nil, serdeAt(req.line, "invalid type: null, expected internally tagged enum Subscription")
		}
		sub := &subscription{}
		pr := &params{req: &request{Params: e, line: req.line}}
		t, ok := pr.str("type", true)
		if pr.err != nil {
			return nil, nil, pr.err
		}
		if !ok || !slices.Contains(s.subTypes, t) {
			return nil, nil, serdeAt(req.line, "unknown variant `%s`, %s", t, expectedOneOf(s.subTypes))
		}
		sub.kind = t
		switch t {
		case "pane.agent_status_changed":
			paneIDs[i], _ = pr.str("pane_id", true)
			if f, ok := pr.str("agent_status", false); ok {
				if statusRank(herdr.AgentStatus(f)) == 0 && f != string(herdr.StatusUnknown) {
					return nil, nil, serdeAt(req.line, "unknown variant `%s`, expected one of `idle`, `working`, `blocked`, `done`, `unknown`", f)
				}
				sub.filter = herdr.AgentStatus(f)
			}
		case "pane.scroll_changed":
			paneIDs[i], _ = pr.str("pane_id", true)
		case "pane.output_matched":
			paneIDs[i], _ = pr.str("pane_id", true)
			pr.str("source", true)
			var m map[string]json.RawMessage
			if _, ok := e["match"]; !ok {
				pr.fail("missing field `match`")
			} else if !pr.object("match", &m) {
				pr.fail("invalid type: null, expected internally tagged enum OutputMatch")
			}
		default:
			sub.bus = snake(t)
		}
		if pr.err != nil {
			return nil, nil, pr.err
		}
		subs[i] = sub
	}
	return subs, paneIDs, nil
}

// subscribe handles events.subscribe: probe, ack, then stream until the
// peer sends anything, closes, a write fails, the server stops, or (22)
// the subscription loses history. lose forces that loss at the first round.
func (s *Server) subscribe(c *net.UnixConn, req *request, stop chan struct{}, lose bool) {
	subs, paneIDs, err := s.parseSubscriptions(req)
	if err != nil {
		s.writeChecked(c, req.Method, errorLine("", "invalid_request", err.Error()))
		return
	}
	s.check(LineRequest, req.line)
	s.mu.Lock()
	if i, ok := s.probeSubs(subs, paneIDs); !ok {
		s.mu.Unlock()
		s.writeChecked(c, req.Method, errorLine(fmt.Sprintf("%s:sub:%d:probe", req.ID, i), "pane_not_found",
			fmt.Sprintf("pane %s not found", paneIDs[i])))
		return
	}
	sig := streamSignals{stop: stop, drop: s.dropSubs, loseAll: s.loseSubs}
	s.mu.Unlock()
	ack, _ := json.Marshal(successResponse{ID: req.ID, Result: typeOnly{Type: "subscription_started"}})
	defer s.openStream(&subs)()
	s.writeChecked(c, req.Method, ack)

	sig.peerGone = watchPeer(c)
	defer func() {
		c.Close()
		<-sig.peerGone
	}()
	s.stream(c, req.ID, subs, sig, lose)
}

// probeSubs sets each subscription's starting point: bus kinds start at
// the ring's end on 22 (up to 20 they replay from cursor 0) and pane kinds
// find their pane. It returns the index of a pane not found, ok false;
// s.mu held.
func (s *Server) probeSubs(subs []*subscription, paneIDs []string) (missing int, ok bool) {
	for i, sub := range subs {
		if sub.bus != "" {
			if s.rel.live() {
				sub.cursor = s.hub.seq // 0.9: live from here, no replay
			}
			continue // up to 20 bus subscriptions replay: cursor 0
		}
		p := s.sess.findPane(paneIDs[i])
		if p == nil {
			return i, false
		}
		sub.pane, sub.cursor, sub.last, sub.initial = p, s.hub.seq, p.presentation(), sub.filter != ""
	}
	return 0, true
}

// openStream counts a stream and registers its subscriptions until the
// returned func runs.
func (s *Server) openStream(subs *[]*subscription) func() {
	s.mu.Lock()
	s.streams++
	if s.subs == nil {
		s.subs = map[*[]*subscription]struct{}{}
	}
	s.subs[subs] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.streams--
		delete(s.subs, subs)
		s.mu.Unlock()
	}
}

// watchPeer returns a channel closed once the peer sends anything or
// closes.
func watchPeer(c *net.UnixConn) chan struct{} {
	peerGone := make(chan struct{})
	go func() {
		// herdr's probe reads one byte and counts any outcome as closed.
		_ = c.SetReadDeadline(time.Time{})
		var b [1]byte
		_, _ = c.Read(b[:])
		close(peerGone)
	}()
	return peerGone
}

// streamSignals are what ends or changes a stream between rounds.
type streamSignals struct {
	peerGone <-chan struct{} // the peer sent something or closed
	stop     <-chan struct{} // the server stops
	drop     <-chan struct{} // cut every stream mid-line
	loseAll  <-chan struct{} // every stream loses history
}

// stream runs rounds every tick until a signal or a round ends it.
func (s *Server) stream(c *net.UnixConn, id string, subs []*subscription, sig streamSignals, lose bool) {
	tick := time.NewTicker(s.cfg.tick)
	defer tick.Stop()
	for {
		select {
		case <-sig.peerGone:
			return
		case <-sig.stop:
			return
		case <-sig.drop:
			_, _ = c.Write([]byte(`{"data":{"label":"cut`))
			return
		case <-sig.loseAll:
			lose = true
		default:
		}
		if !s.sendRounds(c, id, subs, lose) {
			return
		}
		select {
		case <-tick.C:
		case <-sig.peerGone:
			return
		case <-sig.stop:
			return
		case <-sig.drop:
			_, _ = c.Write([]byte(`{"data":{"label":"cut`))
			return
		case <-sig.loseAll:
			lose = true
		}
	}
}

// sendRounds runs one round of each subscription and writes its lines. It
// reports false when the stream ends: history lost or a write failed.
// The round takes every subscription's lines at one moment, so events
// released or emitted meanwhile (HoldEvents' release) reach all of a
// stream's subscriptions in the same round, in their order.
func (s *Server) sendRounds(c *net.UnixConn, id string, subs []*subscription, lose bool) bool {
	batches, lost := s.takeRounds(id, subs)
	for i, lines := range batches {
		if lose {
			s.wrote(len(lines), 0)
			continue
		}
		for j, line := range lines {
			if err := writeLine(c, line); err != nil {
				s.wrote(len(lines), j)
				for _, rest := range batches[i+1:] {
					s.wrote(len(rest), 0)
				}
				return false
			}
		}
		s.wrote(len(lines), len(lines))
	}
	if lost || lose {
		s.eventsLost(c, id)
		return false
	}
	return true
}

// takeRounds takes one round of each subscription under one lock, up to
// the first whose history was lost (lost then).
func (s *Server) takeRounds(id string, subs []*subscription) (batches [][][]byte, lost bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range subs {
		lines, l := s.round(sub)
		if l {
			return batches, true
		}
		if len(lines) > 0 {
			if s.idRounds == nil {
				s.idRounds = map[string]int{}
			}
			s.idRounds[id]++
		}
		s.taken += len(lines)
		batches = append(batches, lines)
	}
	return batches, false
}

// eventsLost ends a 0.9 stream the way herdr does when a subscription fell
// behind the retained history: one error line with the subscribe request's
// id, then close (docs/herdr.md §7). The message is the simulator's words.
func (s *Server) eventsLost(c net.Conn, id string) {
	s.mu.Lock()
	s.lost++
	s.mu.Unlock()
	s.writeChecked(c, "events.subscribe", errorLine(id, "events_lost",
		"event subscription fell behind the retained event history; resubscribe and resync with session.snapshot"))
}

// LoseEvents makes every open event stream end as one that fell behind
// herdr's retained history does: the events_lost line, then close. Only
// 0.9 (protocol 22) has that line; on older protocols it is a misuse,
// since their streams skip lost events silently and never end for it.
func (s *Server) LoseEvents() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.rel.live() {
		s.misuse("LoseEvents: protocol %d has no events_lost (it skips lost events silently)", s.cfg.protocol)
		return
	}
	close(s.loseSubs)
	s.loseSubs = make(chan struct{})
}

// HoldEvents pauses delivery on every event stream until the returned
// func is called, so that a test can put several events into the ring
// between two rounds of the stream loop, as a busy herdr does. Events are
// still recorded while held.
func (s *Server) HoldEvents() (release func()) {
	s.mu.Lock()
	s.held = true
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.held = false
			s.mu.Unlock()
		})
	}
}

// DeliveryRounds counts, over every subscription of every stream, the
// rounds of the stream loop that sent at least one event: up to 20 a
// subscription sends at most one event a round, on 22 its whole backlog.
func (s *Server) DeliveryRounds() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rounds
}

// DeliveryRoundsOf is DeliveryRounds of the streams whose events.subscribe
// request had this id only: a test with several streams can wait for a
// round of the one it means.
func (s *Server) DeliveryRoundsOf(requestID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idRounds[requestID]
}

// wrote settles a round's lines: of taken taken from the ring, n reached
// the stream.
func (s *Server) wrote(taken, n int) {
	if taken == 0 {
		return
	}
	s.mu.Lock()
	s.taken -= taken
	s.delivered += n
	s.mu.Unlock()
}

// Undelivered counts the events every open stream will still send: those
// in the ring past a subscription's cursor that it matches, and those a
// round took from the ring and has not written yet. Zero means every
// subscriber has been sent all it will get of what happened so far (on
// 0.7/0.8, a replay is over); a test then knows its client has the
// events, and EventsDelivered says how many to expect it to have read.
// Held streams (HoldEvents) keep theirs undelivered.
func (s *Server) Undelivered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.taken
	for subs := range s.subs {
		for _, sub := range *subs {
			n += s.backlog(sub)
		}
	}
	return n
}

// backlog is what round would still send a subscription out of the ring;
// s.mu held. Per-pane subscriptions that only compare a pane's looks
// between rounds (no ring event behind them) are not counted.
func (s *Server) backlog(sub *subscription) int {
	n := 0
	for _, e := range s.hub.events {
		if e.seq <= sub.cursor {
			continue
		}
		switch {
		case sub.bus != "":
			if e.kind == sub.bus {
				n++
			}
		case sub.kind == "pane.agent_status_changed" && !sub.pane.gone:
			if e.kind == "pane_agent_status_changed" && e.paneID == sub.pane.id &&
				(sub.filter == "" || e.data["agent_status"] == string(sub.filter)) {
				n++
			}
		}
	}
	return n
}

// EventsDelivered counts the event lines written to every stream since
// the server started. ResetCounters leaves it, so that it stays
// comparable with a count the client keeps of what it read.
func (s *Server) EventsDelivered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered
}

// EventsLost counts the streams ended with events_lost so far.
func (s *Server) EventsLost() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// DropSubscriptions cuts every open event stream in the middle of a line.
func (s *Server) DropSubscriptions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.dropSubs)
	s.dropSubs = make(chan struct{})
}
