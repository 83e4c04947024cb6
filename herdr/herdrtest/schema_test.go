package herdrtest

import (
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// skipFatalTB records how SchemaFile ended a test: Skip and Fatal stop the
// goroutine like the real ones, without ending the surrounding test.
type skipFatalTB struct {
	testing.TB
	how, msg string
}

func (f *skipFatalTB) Helper() {}
func (f *skipFatalTB) Skip(args ...any) {
	f.how, f.msg = "skip", fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *skipFatalTB) Fatal(args ...any) {
	f.how, f.msg = "fatal", fmt.Sprint(args...)
	runtime.Goexit()
}

func runSchemaFile(t *testing.T, protocol int) (path string, tb *skipFatalTB) {
	tb = &skipFatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		path = SchemaFile(tb, protocol)
	}()
	<-done
	return path, tb
}

// A relative $HERDR_API_SCHEMA_DIR starts at the module root, whatever
// package folder the test binary runs in (README's line uses ../shared).
func TestSchemaDirFromModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s has no go.mod", root)
	}
	wd, _ := os.Getwd()
	if wd == root {
		t.Fatalf("the test runs in the module root %s: nothing to prove", wd)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "protocol-22.schema.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(SchemaEnv, rel)
	if got, ok := SchemaDir(); !ok || got != dir {
		t.Fatalf("SchemaDir() = %q, %v; want %q", got, ok, dir)
	}
	if path, tb := runSchemaFile(t, 22); path != filepath.Join(dir, "protocol-22.schema.json") || tb.how != "" {
		t.Fatalf("SchemaFile = %q (%s %s)", path, tb.how, tb.msg)
	}
}

// A missing schema skips with one message, or fails under CI.
func TestSchemaFileMissing(t *testing.T) {
	empty := t.TempDir()
	for _, tt := range []struct {
		ci, dir, how string
	}{
		{"", "", "skip"},
		{"", empty, "skip"},
		{"false", empty, "skip"},
		{"true", "", "fatal"},
		{"true", empty, "fatal"},
		{"1", empty, "fatal"},
	} {
		t.Run(fmt.Sprintf("CI=%s,dir=%v", tt.ci, tt.dir != ""), func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			t.Setenv(SchemaEnv, tt.dir)
			_, tb := runSchemaFile(t, 20)
			if tb.how != tt.how || !strings.Contains(tb.msg, "protocol 20") || !strings.Contains(tb.msg, "set "+SchemaEnv) {
				t.Fatalf("%s: %q, want %s", tb.how, tb.msg, tt.how)
			}
		})
	}
}

// Under CI a server with no schema source at all refuses to start instead
// of running unchecked.
func TestStartWithoutSchemasUnderCI(t *testing.T) {
	t.Setenv(SchemaEnv, "")
	t.Setenv("PATH", t.TempDir()) // no herdr to ask for its schema
	t.Setenv("CI", "true")
	if s, err := New(); err == nil || !strings.Contains(err.Error(), "set "+SchemaEnv) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("New under CI without schemas: %v", err)
	}
	if s, err := New(herdrsim.WithoutSchemas()); err != nil {
		t.Fatalf("WithoutSchemas under CI: %v", err)
	} else {
		s.Close()
	}
	t.Setenv("CI", "")
	s, err := New()
	if err != nil {
		t.Fatalf("outside CI: %v", err)
	}
	defer s.Close()
	if s.SchemasLoaded() {
		t.Fatal("schemas loaded from nowhere")
	}
}
