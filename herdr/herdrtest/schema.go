package herdrtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

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
func SchemaDir() (string, bool) {
	dir := os.Getenv(SchemaEnv)
	return dir, dir != ""
}

// The documents are about 250 KB each and compile slowly, so every server
// of a test binary shares one compiled set per (source, protocol).
var schemaCache = struct {
	sync.Mutex
	m map[string]*schemaSet
}{m: map[string]*schemaSet{}}

var noSchemaOnce sync.Once

// schemaProtocol maps a played protocol to the schema document that
// describes it: unknown newer protocols behave like the newest known one.
func schemaProtocol(p int) int {
	if p > herdrsim.NewestProtocol {
		return herdrsim.NewestProtocol
	}
	return p
}

// loadSchemas finds and compiles the schemas for protocol p. It returns nil
// (and logs once per process) when no source is available at all.
func loadSchemas(explicitDir string, p int) (*schemaSet, error) {
	sp := schemaProtocol(p)
	dir := explicitDir
	if dir == "" {
		dir, _ = SchemaDir()
	}
	if dir != "" {
		path := filepath.Join(dir, fmt.Sprintf("protocol-%d.schema.json", sp))
		return cachedCompile(path, sp, func() ([]byte, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("herdrtest: read schema for protocol %d: %w", sp, err)
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
func (s *schemaSet) Validate(kind LineKind, line []byte) error {
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
