package herdrsim

import (
	"fmt"
	"time"
)

// Limits of herdr's connection handling (docs/herdr.md §2).
const (
	maxRequestBytes     = MaxRequestBytes
	defaultReadTimeout  = 5 * time.Second
	streamWriteTimeout  = 5 * time.Second
	defaultTick         = 100 * time.Millisecond
	defaultProtocol     = 22
	capabilityHandoff   = true
	capabilityDetached  = true
	eventRingCapacity   = 512
	maxSequencedSources = 32
	// ReadPollInterval is herdr's CONNECTION_POLL_INTERVAL: how long a
	// connection thread sleeps when its request line has not arrived yet.
	ReadPollInterval = 100 * time.Millisecond
	// ReadPollOvershoot is how much longer than asked each of those
	// sleeps lasts: herdr's std::thread::sleep is a nanosleep, which on
	// Linux wakes after the kernel's 50 µs timer slack plus the wake-up
	// (docs/herdr.md §2). Go's timers are coarser when a process idles
	// (up to a millisecond late, every time); the simulator keeps to
	// herdr's timeline instead, so that their lateness does not add up
	// over a connection's life.
	ReadPollOvershoot = 100 * time.Microsecond
)

type config struct {
	protocol    int    // 0: the release's, or defaultProtocol
	version     string // "": the protocol's default release
	tick        time.Duration
	schemaDir   string
	dir         string
	readTimeout time.Duration
	noSchemas   bool
	offline     bool
	noReadPoll  bool
	lateWrites  bool
	validator   Validator
	onViolation func(msg string)
}

// Option configures a Server.
type Option func(*config)

// WithProtocol picks the protocol to play: 17, 19, 20 or 22 (default 22),
// as its release does (17: 0.7.5, 19: 0.8.0, 20: 0.8.2, 22: 0.9.1). 21, a
// development build between 0.8.2 and 0.9.0, plays as 20; a number above 22
// plays as 22 but reports itself, like an unknown newer herdr.
func WithProtocol(p int) Option { return func(c *config) { c.protocol = p } }

// WithRelease picks the herdr release to play by its version ("0.7.5",
// "0.8.0", "0.8.2", "0.9.0" ... "0.9.3", see Releases); ping reports it,
// and its protocol follows.
func WithRelease(version string) Option { return func(c *config) { c.version = version } }

// WithoutReadPoll turns off herdr's request-read poll, which is on by
// default: herdr reads a request line non-blocking and sleeps 100 ms
// whenever it has not arrived yet, so each request can take 0-100 ms
// longer (docs/herdr.md §2). For unit tests that do not measure latency;
// demo, benchmarks and the integration suite keep it on.
func WithoutReadPoll() Option { return func(c *config) { c.noReadPoll = true } }

// WithLateWrites makes every client lose the race with herdr's first look
// at a new connection: the look at accept finds nothing, as happens when
// herdr runs before the client's write (docs/herdr.md §2), so a request on
// a fresh connection waits one poll. A request written on a connection
// opened earlier is read at its next look as usual.
func WithLateWrites() Option { return func(c *config) { c.lateWrites = true } }

// WithTick sets the event stream tick (default 100 ms, herdr's own).
func WithTick(d time.Duration) Option { return func(c *config) { c.tick = d } }

// WithSchemaDir names the directory of protocol-N.schema.json files
// (default $HERDR_API_SCHEMA_DIR, else `herdr api schema --json`).
func WithSchemaDir(dir string) Option { return func(c *config) { c.schemaDir = dir } }

// WithoutSchemas tells herdrtest not to load schemas (the simulator itself
// never does).
func WithoutSchemas() Option { return func(c *config) { c.noSchemas = true } }

// Offline makes a server that listens on no socket: requests reach it
// only through Do, one at a time, in the order a test schedules them.
func Offline() Option { return func(c *config) { c.offline = true } }

// Validator checks one wire line against the played protocol's schema.
// herdrtest supplies one built on herdr's JSON schemas; keeping it behind
// this seam keeps the schema library out of the herdrtabrenamer binary,
// whose `demo` embeds the simulator.
type Validator interface {
	Validate(kind LineKind, line []byte) error
}

// WithValidator checks every request received and every line sent.
func WithValidator(v Validator) Option { return func(c *config) { c.validator = v } }

// WithViolationHandler is called with each schema violation or API misuse
// (herdrtest passes t.Errorf); they are also kept for Violations.
func WithViolationHandler(f func(msg string)) Option {
	return func(c *config) { c.onViolation = f }
}

// Settings are the options that matter to a validator loader.
type Settings struct {
	Protocol       int // reported
	SchemaProtocol int // whose schema the played lines follow
	SchemaDir      string
	NoSchemas      bool
}

// SettingsOf applies opts to the defaults and reports the protocol and
// schema choices, so herdrtest can load the right schema before New.
func SettingsOf(opts []Option) (Settings, error) {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	r, err := c.release()
	if err != nil {
		return Settings{}, err
	}
	return Settings{Protocol: r.protocol, SchemaProtocol: r.plays, SchemaDir: c.schemaDir, NoSchemas: c.noSchemas}, nil
}

// release resolves WithRelease and WithProtocol (default: protocol 22).
func (c config) release() (release, error) {
	if c.protocol == 0 && c.version == "" {
		c.protocol = defaultProtocol
	}
	return resolveRelease(c.version, c.protocol)
}

func defaultConfig() config {
	return config{tick: defaultTick, readTimeout: defaultReadTimeout}
}

// LineKind says which of the five schemas of a protocol document covers a line.
type LineKind int

// The line kinds, one per entry of the schema document's "schemas" object.
const (
	LineRequest LineKind = iota
	LineSuccess
	LineError
	LineEvent             // bus events ("tab_renamed" dialect)
	LineSubscriptionEvent // per-pane events ("pane.agent_status_changed" dialect)
)

var lineKindNames = [...]string{"request", "success_response", "error_response", "event", "subscription_event"}

// String is the kind's key in the schema document.
func (k LineKind) String() string {
	if k >= 0 && int(k) < len(lineKindNames) {
		return lineKindNames[k]
	}
	return fmt.Sprintf("LineKind(%d)", int(k))
}

// WithDir puts herdr.sock in dir instead of a new temporary directory.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithReadTimeout sets how long a connection may take to send its request
// line (default 5 s, herdr's own).
func WithReadTimeout(d time.Duration) Option { return func(c *config) { c.readTimeout = d } }
