package rundir

import "time"

// Reload is the outcome of a running daemon's last configuration reload
// (SIGHUP). A refused reload leaves the daemon on its old configuration
// and is otherwise only in its log, so the daemon keeps this record in
// the runtime directory, where status reads it.
type Reload struct {
	PID   int       `json:"pid"` // the daemon that reloaded
	At    time.Time `json:"at"`
	Error string    `json:"error,omitempty"` // why it was refused; "" when it took effect
}

// ReloadPath is where the daemon of a herdr server keeps its Reload.
func ReloadPath(herdrSocket string) (string, error) { return recordPath(herdrSocket, "reload") }

// WriteReload replaces the record.
func WriteReload(herdrSocket string, r Reload) error { return writeRecord(herdrSocket, "reload", r) }

// ReadReload reads the record; with none the error wraps os.ErrNotExist.
func ReadReload(herdrSocket string) (Reload, error) {
	var r Reload
	err := readRecord(herdrSocket, "reload", &r)
	return r, err
}
