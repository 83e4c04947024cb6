// Package herdrtest is the fake herdr server for tests: herdrsim's
// simulator with every request received and every line sent validated
// against herdr's own JSON schema for the played protocol. A violation
// fails the test that caused it.
//
// Schemas come from WithSchemaDir, else $HERDR_API_SCHEMA_DIR (a relative
// path starts at the module root), else `herdr api schema --json` when
// herdr is on PATH; with none of them the checks are skipped with one
// logged message, or, with CI=true, the server refuses to start.
//
// The server plays herdr's 100 ms request-read poll by default, as herdr
// does; WithoutReadPoll turns it off for tests that do not measure latency.
package herdrtest

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// The simulator's types, under the names tests know them by.
type (
	Server   = herdrsim.Server
	Option   = herdrsim.Option
	Proc     = herdrsim.Proc
	Fault    = herdrsim.Fault
	LineKind = herdrsim.LineKind
)

// Line kinds.
const (
	LineRequest           = herdrsim.LineRequest
	LineError             = herdrsim.LineError
	LineEvent             = herdrsim.LineEvent
	LineSubscriptionEvent = herdrsim.LineSubscriptionEvent
)

// Faults.
const (
	FaultGarbage       = herdrsim.FaultGarbage
	FaultCloseNoAnswer = herdrsim.FaultCloseNoAnswer
	FaultReset         = herdrsim.FaultReset
	FaultCutLine       = herdrsim.FaultCutLine
	FaultOversize      = herdrsim.FaultOversize
	FaultSchemaInvalid = herdrsim.FaultSchemaInvalid
	FaultEventsLost    = herdrsim.FaultEventsLost
)

// NewestProtocol is the newest protocol the simulator plays.
const NewestProtocol = herdrsim.NewestProtocol

// ReadPollInterval is herdr's request-read poll interval.
const ReadPollInterval = herdrsim.ReadPollInterval

// Options.
var (
	WithProtocol    = herdrsim.WithProtocol
	WithTick        = herdrsim.WithTick
	WithSchemaDir   = herdrsim.WithSchemaDir
	WithReadTimeout = herdrsim.WithReadTimeout
	WithLateWrites  = herdrsim.WithLateWrites
	WithoutSchemas  = herdrsim.WithoutSchemas
	WithRelease     = herdrsim.WithRelease
	WithoutReadPoll = herdrsim.WithoutReadPoll
)

// Start starts a server for a test; it is closed by t.Cleanup and every
// schema violation fails t.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := newServer(opts, func(msg string) { t.Errorf("%s", msg) })
	if err != nil {
		t.Fatalf("herdrtest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("herdrtest: close: %v", err)
		}
	})
	return s
}

// New starts a validated server outside a test; violations are collected
// for Violations.
func New(opts ...Option) (*Server, error) { return newServer(opts, nil) }

func newServer(opts []Option, onViolation func(string)) (*Server, error) {
	set, err := herdrsim.SettingsOf(opts)
	if err != nil {
		return nil, err
	}
	if !set.NoSchemas {
		schemas, err := loadSchemas(set.SchemaDir, set.SchemaProtocol)
		if err != nil {
			return nil, err
		}
		if schemas != nil {
			opts = append(opts, herdrsim.WithValidator(schemas))
		}
	}
	if onViolation != nil {
		opts = append(opts, herdrsim.WithViolationHandler(onViolation))
	}
	return herdrsim.New(opts...)
}
