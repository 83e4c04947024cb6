package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sourceFiles parses every non-test Go file of the module (testdata and
// hidden folders aside) and calls visit with each.
func sourceFiles(t *testing.T, visit func(path string, fset *token.FileSet, f *ast.File, lines int)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		visit(filepath.ToSlash(path), fset, f, fset.File(f.Pos()).LineCount())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestCodeShape keeps the code readable at once: no function over 60
// lines, no file of the daemon over 450, no mutex handed to a function
// (its owner's methods take it), and the rule of whose a label is in
// namer alone.
func TestCodeShape(t *testing.T) {
	sourceFiles(t, func(path string, fset *token.FileSet, f *ast.File, lines int) {
		if strings.HasPrefix(path, "daemon/") && lines > 450 {
			t.Errorf("%s: %d lines, over 450: split it by concern", path, lines)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				checkFunc(t, fset, path, n)
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "namer" && n.Sel.Name == "IsHerdrLabel" {
					t.Errorf("%s: calls namer.IsHerdrLabel: ask namer.Fate whose a label is", fset.Position(n.Pos()))
				}
			}
			return true
		})
	})
}

func checkFunc(t *testing.T, fset *token.FileSet, path string, fn *ast.FuncDecl) {
	t.Helper()
	if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > 60 {
		t.Errorf("%s: %s is %d lines, over 60", path, fn.Name.Name, n)
	}
	for _, p := range fn.Type.Params.List {
		if mutexType(p.Type) {
			t.Errorf("%s: %s takes a mutex: let the type that owns it lock it", path, fn.Name.Name)
		}
	}
}

// mutexType: *sync.Mutex, *sync.RWMutex, sync.Locker.
func mutexType(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "sync" && (sel.Sel.Name == "Mutex" || sel.Sel.Name == "RWMutex" || sel.Sel.Name == "Locker")
}

// TestDaemonFieldsHaveFewWriters keeps each field of Daemon changed from
// at most two files of daemon/: a field assigned from many files has no
// owner a reader can find, nor one place that keeps its invariants.
func TestDaemonFieldsHaveFewWriters(t *testing.T) {
	files := map[string]*ast.File{}
	sourceFiles(t, func(path string, _ *token.FileSet, f *ast.File, _ int) {
		if name, ok := strings.CutPrefix(path, "daemon/"); ok && !strings.Contains(name, "/") {
			files[name] = f
		}
	})
	fields := daemonFields(files)
	if len(fields) == 0 {
		t.Fatal("daemon: no type Daemon struct found")
	}
	writers := map[string][]string{}
	for name, f := range files {
		seen := map[string]bool{}
		for _, field := range daemonFieldWrites(f, fields) {
			if !seen[field] {
				seen[field] = true
				writers[field] = append(writers[field], name)
			}
		}
	}
	for _, field := range slices.Sorted(maps.Keys(writers)) {
		if in := writers[field]; len(in) > 2 {
			slices.Sort(in)
			t.Errorf("daemon: field Daemon.%s is assigned in %d files (%s): give it an owner type whose methods change it",
				field, len(in), strings.Join(in, ", "))
		}
	}
}

// daemonFields names the top-level fields of type Daemon struct.
func daemonFields(files map[string]*ast.File) map[string]bool {
	fields := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "Daemon" {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, fl := range st.Fields.List {
					for _, id := range fl.Names {
						fields[id.Name] = true
					}
				}
			}
			return false
		})
	}
	return fields
}

// daemonFieldWrites lists, in source order, the Daemon field each write
// in n reaches: a left side of an assignment, the operand of ++ or --,
// the map or slice handed to delete or clear.
func daemonFieldWrites(n ast.Node, fields map[string]bool) []string {
	var found []string
	write := func(e ast.Expr) {
		if field, ok := daemonField(e, fields); ok {
			found = append(found, field)
		}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, e := range n.Lhs {
				write(e)
			}
		case *ast.IncDecStmt:
			write(n.X)
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
				write(n.Args[0])
			}
		}
		return true
	})
	return found
}

// daemonField walks e down to its root and returns the field F of the
// selector d.F (or x.d.F) closest to that root, if F is a Daemon field.
func daemonField(e ast.Expr, fields map[string]bool) (string, bool) {
	field, ok := "", false
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			if fields[x.Sel.Name] && isDaemonVar(x.X) {
				field, ok = x.Sel.Name, true
			}
			e = x.X
		default:
			return field, ok
		}
	}
}

// isDaemonVar: a *Daemon is named d, or reached as .d on a helper type.
func isDaemonVar(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "d"
	case *ast.SelectorExpr:
		return x.Sel.Name == "d"
	}
	return false
}

// TestDaemonFieldMatcher shows daemonFieldWrites finds the writes the
// rule counts, and only those.
func TestDaemonFieldMatcher(t *testing.T) {
	fields := map[string]bool{"state": true, "last": true, "procs": true, "n": true}
	for _, c := range []struct {
		stmt string
		want []string
	}{
		{"d.state = s", []string{"state"}},
		{"d.state.Tabs[id] = m", []string{"state"}},
		{"r.d.last.Tabs[i].Label = l", []string{"last"}},
		{"l.d.procs[id] = p", []string{"procs"}},
		{"*d.last = x", []string{"last"}},
		{"(d.state).n = 1", []string{"state"}},
		{"delete(d.procs, id)", []string{"procs"}},
		{"clear(d.procs)", []string{"procs"}},
		{"d.n++", []string{"n"}},
		{"d.n += 2", []string{"n"}},
		{"x, d.n = 1, 2", []string{"n"}},
		{"x.state = 1", nil},
		{"dd.state = 1", nil},
		{"d.other = 1", nil},
		{"x := d.state", nil},
		{"d.state.Set(x)", nil},
		{"delete(m, d.procs)", nil},
	} {
		src := "package p\nfunc f() {\n" + c.stmt + "\n}\n"
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
		if err != nil {
			t.Fatalf("%q: %v", c.stmt, err)
		}
		if got := daemonFieldWrites(f, fields); !slices.Equal(got, c.want) {
			t.Errorf("%q: writes %q, want %q", c.stmt, got, c.want)
		}
	}
}
