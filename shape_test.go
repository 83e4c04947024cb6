package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
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
// lines, no file over 650, and no mutex handed to a function (its
// owner's methods take it). Whose a label is is package owner's alone:
// TestOwnershipInputMadeInItsRoom.
func TestCodeShape(t *testing.T) {
	sourceFiles(t, func(path string, fset *token.FileSet, f *ast.File, lines int) {
		if lines > 650 {
			t.Errorf("%s: %d lines, over 650: split it by concern", path, lines)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fn, ok := n.(*ast.FuncDecl); ok {
				checkFunc(t, fset, path, fn)
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
