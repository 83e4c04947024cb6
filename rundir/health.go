package rundir

import "time"

// Health is what a running daemon cannot do, as it last found: each
// trouble it is in, since when and why. A daemon that cannot save its
// state renames nothing and one whose subscription herdr refuses hears
// nothing, yet both run on, with only their log to say so; the daemon
// keeps this record, where status reads it.
type Health struct {
	PID      int       `json:"pid"` // the daemon
	At       time.Time `json:"at"`  // when the record last changed
	Troubles []Trouble `json:"troubles,omitempty"`
}

// What a daemon can fail to do and go on running (Trouble.What).
const (
	TroubleState     = "save its state"
	TroubleSubscribe = "subscribe to herdr's events"
	TroubleRename    = "rename tabs"
	// herdr keeps at most 32 metadata tokens per pane, every tool's
	// together: ours may find no room.
	TroubleSidebar = "report sidebar tokens"
	// The kernel's watches, which a daemon runs on without (polling):
	// the inotify instances or watches of the user may be used up.
	TroubleSessionWatch = "watch agents' session files"
	TroubleLocalWatch   = "watch local shells"
)

// Trouble is one thing a daemon cannot do.
type Trouble struct {
	What  string    `json:"what"` // one of the Trouble* above
	Since time.Time `json:"since"`
	Error string    `json:"error"` // the last error of it
}

// WriteHealth replaces the record.
func WriteHealth(herdrSocket string, h Health) error { return writeRecord(herdrSocket, "health", h) }

// ReadHealth reads the record; with none the error wraps os.ErrNotExist.
func ReadHealth(herdrSocket string) (Health, error) {
	var h Health
	err := readRecord(herdrSocket, "health", &h)
	return h, err
}
