package procinfo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestFixturesMatchSchema checks every process_info fixture against herdr's
// own response schema for each protocol, so the fixtures stay in the wire
// shape. The schemas live outside the project ($HERDR_API_SCHEMA_DIR, found
// by herdrtest: relative to the module root, fatal under CI when missing).
func TestFixturesMatchSchema(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "process_info", "*.json"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, protocol := range []int{17, 19, 20, 22} {
		path := herdrtest.SchemaFile(t, protocol)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		c := jsonschema.NewCompiler()
		url := "file:///protocol-" + fmt.Sprint(protocol) + ".schema.json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(url + "#/schemas/success_response")
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, fx := range fixtures {
			data, err := os.ReadFile(fx)
			if err != nil {
				t.Fatal(err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", fx, err)
			}
			if err := sch.Validate(v); err != nil {
				t.Errorf("protocol %d: %s: %v", protocol, fx, err)
			}
		}
	}
}
