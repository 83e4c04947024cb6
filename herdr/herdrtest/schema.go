package herdrtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaEnv names the directory holding protocol-N.schema.json files.
const SchemaEnv = "HERDR_API_SCHEMA_DIR"

var schemaNames = [...]string{"request", "success_response", "error_response", "event", "subscription_event"}

// schemaSet holds the five compiled schemas of one protocol document.
type schemaSet struct {
	source string
	byKind [len(schemaNames)]*jsonschema.Schema
}

// SchemaDir reports the schema directory named by $HERDR_API_SCHEMA_DIR.
// A relative value is taken from the module root (the nearest directory
// with a go.mod above the working directory), not from the package folder
// `go test` runs each test binary in, so README's
// HERDR_API_SCHEMA_DIR=../shared/herdr-api works for every package.
func SchemaDir() (string, bool) {
	dir := os.Getenv(SchemaEnv)
	if dir == "" {
		return "", false
	}
	if !filepath.IsAbs(dir) {
		if root, err := ModuleRoot(); err == nil {
			dir = filepath.Join(root, dir)
		}
	}
	return filepath.Clean(dir), true
}

// ModuleRoot is the nearest directory at or above the working directory
// that holds a go.mod.
func ModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("find module root: no go.mod at or above %s", wd)
		}
	}
}

// InCI reports whether the tests run under CI (CI=true or CI=1, as CI
// services set it): there a missing schema fails instead of skipping.
func InCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// SchemaFile is the path of protocol-N.schema.json in SchemaDir, for tests
// that check lines or fixtures against herdr's own schema. When it is not
// there, the test is skipped with one message saying what to set, or
// fails under CI, where a skipped schema check would pass unnoticed.
func SchemaFile(tb testing.TB, protocol int) string {
	tb.Helper()
	dir, ok := SchemaDir()
	var why string
	if !ok {
		why = SchemaEnv + " is unset"
	} else {
		path := filepath.Join(dir, fmt.Sprintf("protocol-%d.schema.json", protocol))
		_, err := os.Stat(path)
		if err == nil {
			return path
		}
		why = fmt.Sprintf("%s=%s: %v", SchemaEnv, os.Getenv(SchemaEnv), err)
	}
	msg := fmt.Sprintf("no herdr schema for protocol %d (%s); set %s to the directory of protocol-N.schema.json files (relative paths start at the module root)",
		protocol, why, SchemaEnv)
	if InCI() {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// The documents are about 250 KB each and compile slowly, so every server
// of a test binary shares one compiled set per (source, protocol).
var schemaCache = struct {
	sync.Mutex
	m map[string]*schemaSet
}{m: map[string]*schemaSet{}}

var noSchemaOnce sync.Once

// errNoSchemas is a missing schema source under CI.
var errNoSchemas = errors.New("herdrtest: CI is set but no herdr schema source was found: set " + SchemaEnv +
	" to the directory of protocol-N.schema.json files (relative paths start at the module root)")

// loadSchemas finds and compiles the schemas for protocol sp (the protocol
// whose schema the played lines follow). It returns nil (and logs once per
// process) when no source is available at all, except under CI, where that
// is an error.
func loadSchemas(explicitDir string, sp int) (*schemaSet, error) {
	dir := explicitDir
	if dir == "" {
		dir, _ = SchemaDir()
	} else if !filepath.IsAbs(dir) {
		if root, err := ModuleRoot(); err == nil {
			dir = filepath.Join(root, dir)
		}
	}
	if dir != "" {
		path := filepath.Join(dir, fmt.Sprintf("protocol-%d.schema.json", sp))
		return cachedCompile(path, sp, func() ([]byte, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("herdrtest: read schema for protocol %d: %w (set %s to the directory of protocol-N.schema.json files)", sp, err, SchemaEnv)
			}
			return b, nil
		})
	}
	if bin, err := exec.LookPath("herdr"); err == nil {
		return cachedCompile("herdr api schema --json", sp, func() ([]byte, error) {
			out, err := exec.Command(bin, "api", "schema", "--json").Output()
			if err != nil {
				return nil, fmt.Errorf("herdrtest: %s api schema --json: %w", bin, err)
			}
			return out, nil
		})
	}
	if InCI() {
		return nil, errNoSchemas
	}
	noSchemaOnce.Do(func() {
		slog.Warn("herdrtest: no herdr schemas (" + SchemaEnv + " unset, no herdr on PATH): schema checks skipped")
	})
	return nil, nil
}

func cachedCompile(source string, p int, read func() ([]byte, error)) (*schemaSet, error) {
	key := fmt.Sprintf("%s#%d", source, p)
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if s, ok := schemaCache.m[key]; ok {
		return s, nil
	}
	raw, err := read()
	if err != nil {
		return nil, err
	}
	s, err := compileSchemas(source, p, raw)
	if err != nil {
		return nil, err
	}
	schemaCache.m[key] = s
	return s, nil
}

func compileSchemas(source string, p int, raw []byte) (*schemaSet, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("herdrtest: parse schema %s: %w", source, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("herdrtest: schema %s: top level is not an object", source)
	}
	if n, ok := obj["protocol"].(json.Number); !ok || n.String() != fmt.Sprint(p) {
		return nil, fmt.Errorf("herdrtest: schema %s describes protocol %v, want %d", source, obj["protocol"], p)
	}
	url := fmt.Sprintf("https://herdrtest.invalid/protocol-%d.schema.json", p)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("herdrtest: add schema %s: %w", source, err)
	}
	s := &schemaSet{source: source}
	for i, name := range schemaNames {
		sch, err := c.Compile(url + "#/schemas/" + name)
		if err != nil {
			return nil, fmt.Errorf("herdrtest: compile %s schema of %s: %w", name, source, err)
		}
		s.byKind[i] = sch
	}
	return s, nil
}

// validate checks one wire line (without its newline) against the schema of
// its kind and returns a one-line description of the violation, if any.
// Validate implements herdrsim.Validator.
func (s *schemaSet) Validate(kind herdrsim.LineKind, line []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(line))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := s.byKind[kind].Validate(v); err != nil {
		msg := strings.Join(strings.Fields(err.Error()), " ")
		if len(msg) > 1500 {
			msg = msg[:1500] + "…"
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}
