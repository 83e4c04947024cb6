package integration

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// serialTests are the tests of this package that must not run beside the
// others, each with why. They run first, one at a time, before the
// parallel ones start.
var serialTests = map[string]string{
	"TestFaultNudgeFloodGoroutines": "t.Setenv: the daemon it runs in-process reads XDG_RUNTIME_DIR",
	"TestFaultNudgeFlood10000":      "counts the daemon's passes in the 2 s after its flood: a daemon slowed by its neighbours is still working off the flood then",
	"TestRealHerdrSimDifferences":   "compares the pacing of herdrsim's event streams with real herdr's (at once, a tick later): neighbours' load shifts it",
	// Races of 40 person renames against the daemon's passes, on herdrsim
	// in this -race test binary: each rename's echo must reach the daemon
	// inside its watch (100 herdr ticks), and the paced event streams of a
	// herdrsim slowed by its neighbours miss it. Their worlds run in turn
	// (everyProtocolInTurn). On a machine busy with other work they miss
	// it alone too.
	"TestRealHerdrPersonRenameRace":             "races 40 person renames on herdrsim: see above",
	"TestRealHerdrPersonRenameRaceDuringReplay": "races 40 person renames on herdrsim: see above",
	"TestOwnershipPersonRenameRaceSurvives":     "races 40 person renames on herdrsim: see above",
}

// TestEveryTestRunsInParallel holds every test of this package to the
// rule the package doc states: it calls t.Parallel() in its own body, or
// serialTests says why it cannot. One serial test that waits for
// seconds adds them to the package's wall time.
func TestEveryTestRunsInParallel(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files here: %v", err)
	}
	fset := token.NewFileSet()
	var serial, parallel []string
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || fd.Body == nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
				continue
			}
			if callsParallel(fd.Body) {
				parallel = append(parallel, fd.Name.Name)
				continue
			}
			serial = append(serial, fd.Name.Name)
			if _, ok := serialTests[fd.Name.Name]; !ok {
				t.Errorf("%s (%s) does not call t.Parallel(): start it with t.Parallel(), or list it in serialTests with why it must run alone", fd.Name.Name, fset.Position(fd.Pos()))
			}
		}
	}
	for name := range serialTests {
		if !slices.Contains(serial, name) {
			t.Errorf("serialTests lists %s, which is no serial test of this package (gone, or parallel now): take it out", name)
		}
	}
	if len(parallel) < 50 {
		t.Fatalf("found only %d parallel tests: is this the package folder?", len(parallel))
	}
}

// callsParallel reports whether body calls t.Parallel() itself, not in a
// function literal of its own.
func callsParallel(body *ast.BlockStmt) bool {
	for _, st := range body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Parallel" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "t" {
				return true
			}
		}
	}
	return false
}
