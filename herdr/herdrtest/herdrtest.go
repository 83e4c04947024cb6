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
// does; herdrsim.WithoutReadPoll turns it off for tests that do not
// measure latency. Options and the server's type are herdrsim's.
package herdrtest

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// Start starts a server for a test; it is closed by t.Cleanup and every
// schema violation fails t.
func Start(t testing.TB, opts ...herdrsim.Option) *herdrsim.Server {
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
func New(opts ...herdrsim.Option) (*herdrsim.Server, error) { return newServer(opts, nil) }

func newServer(opts []herdrsim.Option, onViolation func(string)) (*herdrsim.Server, error) {
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
