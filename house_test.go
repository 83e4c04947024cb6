package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The house: rooms by what they do, each owning its state. These checks
// resolve types (go/packages) over the module's non-test code, so a
// method call that changes a field counts as much as an assignment.

const module = "github.com/herdrtabrenamer/herdrtabrenamer"

// loadModule loads every package of the module with its syntax and types.
func loadModule(t *testing.T) []*packages.Package {
	t.Helper()
	if testing.Short() {
		t.Skip("loads the whole module with its types; not in -short")
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports, Tests: false}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Fatalf("%s: %v", p.PkgPath, e)
		}
	}
	return pkgs
}

// rel is a package's path inside the module ("" for the root).
func rel(p *packages.Package) string {
	return strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, module), "/")
}

// TestTheHouse checks the shape of the rooms: a coordinator of few
// methods, no room over 20 files or 3,000 lines, no JSON decoded in the
// daemon, herdr's process facts built only where they are read.
func TestTheHouse(t *testing.T) {
	pkgs := loadModule(t)
	for _, p := range pkgs {
		r := rel(p)
		checkRoomSize(t, p, r)
		if r == "daemon" {
			for _, name := range []string{"Daemon", "loop"} {
				if n := methodCount(p, name); n > 30 {
					t.Errorf("daemon.%s has %d methods, over 30: give what it does a room of its own", name, n)
				}
			}
			for path := range p.Imports {
				if path == "encoding/json" || strings.HasSuffix(path, "go-json") {
					t.Errorf("daemon imports %s: herdr's JSON is decoded in package herdr", path)
				}
			}
		}
		if r != "herdr" && r != "procinfo" && !strings.HasPrefix(r, "herdr/") {
			checkNoProcessInfo(t, p)
		}
	}
}

// checkRoomSize: no package outside the simulator and integration/ over
// 20 files or 3,000 lines of non-test code.
func checkRoomSize(t *testing.T, p *packages.Package, r string) {
	if r == "herdr/herdrsim" || r == "integration" || strings.HasPrefix(r, "integration/") {
		return
	}
	lines := 0
	for _, f := range p.Syntax {
		lines += p.Fset.File(f.Pos()).LineCount()
	}
	if len(p.Syntax) > 20 || lines > 3000 {
		t.Errorf("package %s has %d files and %d lines: over 20 or 3,000, split it by what it does", p.PkgPath, len(p.Syntax), lines)
	}
}

// methodCount is how many methods the named type declares.
func methodCount(p *packages.Package, name string) int {
	obj := p.Types.Scope().Lookup(name)
	if obj == nil {
		return 0
	}
	if n, ok := obj.Type().(*types.Named); ok {
		return n.NumMethods()
	}
	return 0
}

// checkNoProcessInfo: a herdr.ProcessInfo is herdr's answer; made up
// elsewhere it would dress a local read as herdr's.
func checkNoProcessInfo(t *testing.T, p *packages.Package) {
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if named, ok := p.TypesInfo.TypeOf(lit).(*types.Named); ok && named.Obj().Pkg() != nil &&
				named.Obj().Pkg().Path() == module+"/herdr" && named.Obj().Name() == "ProcessInfo" {
				t.Errorf("%s: builds a herdr.ProcessInfo: only herdr and procinfo may", p.Fset.Position(lit.Pos()))
			}
			return true
		})
	}
}

// TestMemoryChangesOnlyThroughItsVerbs: no field of a type declared in
// package state is written (assigned, ++ or --, handed to delete or
// clear) outside package state.
func TestMemoryChangesOnlyThroughItsVerbs(t *testing.T) {
	for _, p := range loadModule(t) {
		if rel(p) == "state" {
			continue
		}
		for _, f := range p.Syntax {
			for _, w := range fieldWrites(p, f) {
				if v, ok := p.TypesInfo.Uses[w.Sel].(*types.Var); ok && v.IsField() && v.Pkg() != nil && v.Pkg().Path() == module+"/state" {
					t.Errorf("%s: writes state's field %s: use a verb of state.Tx", p.Fset.Position(w.Pos()), v.Name())
				}
			}
		}
	}
}

// fieldWrites lists the selectors written in f: the left side of an
// assignment, the operand of ++ or --, what delete and clear are handed,
// each walked down to every field selector on its way to its root.
func fieldWrites(p *packages.Package, f *ast.File) []*ast.SelectorExpr {
	var out []*ast.SelectorExpr
	write := func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				if sel, ok := p.TypesInfo.Selections[x]; ok && sel.Kind() == types.FieldVal {
					out = append(out, x)
				}
				e = x.X
			default:
				return
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, e := range n.Lhs {
					write(e)
				}
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
	return out
}

// TestDaemonFieldsHaveFewWriters keeps each field of Daemon changed from
// at most two files of daemon/: a field changed from many files has no
// owner a reader can find, nor one place that keeps its invariants. A
// change is an assignment to the field (or through it), or a call of a
// method that changes its receiver on it.
func TestDaemonFieldsHaveFewWriters(t *testing.T) {
	pkgs := loadModule(t)
	changes := changingMethods(pkgs)
	for _, p := range pkgs {
		if rel(p) != "daemon" {
			continue
		}
		daemon := p.Types.Scope().Lookup("Daemon").Type().(*types.Named).Underlying().(*types.Struct)
		writers := map[string]map[string]bool{}
		for _, f := range p.Syntax {
			file := filepath.Base(p.Fset.File(f.Pos()).Name())
			for _, field := range daemonFieldChanges(p, f, daemon, changes) {
				if writers[field] == nil {
					writers[field] = map[string]bool{}
				}
				writers[field][file] = true
			}
		}
		for _, field := range slices.Sorted(maps.Keys(writers)) {
			if files := slices.Sorted(maps.Keys(writers[field])); len(files) > 2 {
				t.Errorf("daemon: field Daemon.%s is changed in %d files (%s): give it an owner type whose methods change it",
					field, len(files), strings.Join(files, ", "))
			}
		}
	}
}

// changingMethods are the module's methods that change their receiver:
// one that writes through it, or calls on it (or on a field of it) a
// method that does.
func changingMethods(pkgs []*packages.Package) map[*types.Func]bool {
	type method struct {
		p    *packages.Package
		decl *ast.FuncDecl
		recv types.Object
	}
	var all []method
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || len(fd.Recv.List[0].Names) == 0 || fd.Body == nil {
					continue
				}
				all = append(all, method{p, fd, p.TypesInfo.Defs[fd.Recv.List[0].Names[0]]})
			}
		}
	}
	changes := map[*types.Func]bool{}
	for grew := true; grew; {
		grew = false
		for _, m := range all {
			fn := m.p.TypesInfo.Defs[m.decl.Name].(*types.Func)
			if !changes[fn] && changesRoot(m.p, m.decl.Body, m.recv, changes) {
				changes[fn], grew = true, true
			}
		}
	}
	return changes
}

// changesRoot reports whether body writes through root, or calls a
// changing method on root or one of its fields.
func changesRoot(p *packages.Package, body ast.Node, root types.Object, changes map[*types.Func]bool) bool {
	rooted := func(e ast.Expr) bool { return rootOf(p, e) == root }
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				found = found || slices.ContainsFunc(n.Lhs, func(e ast.Expr) bool { _, isID := e.(*ast.Ident); return !isID && rooted(e) })
			}
		case *ast.IncDecStmt:
			found = found || rooted(n.X)
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
				found = found || rooted(n.Args[0])
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				fn, _ := p.TypesInfo.Uses[sel.Sel].(*types.Func)
				found = found || fn != nil && changes[fn] && rooted(sel.X)
			}
		}
		return !found
	})
	return found
}

// rootOf is the variable an expression of selectors, indexes and stars
// starts from, nil when it starts elsewhere (a call).
func rootOf(p *packages.Package, e ast.Expr) types.Object {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.Ident:
			return p.TypesInfo.Uses[x]
		default:
			return nil
		}
	}
}

// daemonFieldChanges lists, in source order, the Daemon field each change
// in f reaches: a write through d.F (d any expression of type Daemon), or
// a call of a changing method on d.F or a field of it.
func daemonFieldChanges(p *packages.Package, f *ast.File, daemon *types.Struct, changes map[*types.Func]bool) []string {
	field := func(e ast.Expr) (string, bool) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				if isDaemon(p.TypesInfo.TypeOf(x.X), daemon) {
					return x.Sel.Name, true
				}
				e = x.X
			default:
				return "", false
			}
		}
	}
	var out []string
	add := func(e ast.Expr) {
		if name, ok := field(e); ok {
			out = append(out, name)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, e := range n.Lhs {
					add(e)
				}
			}
		case *ast.IncDecStmt:
			add(n.X)
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "delete" || id.Name == "clear") && len(n.Args) > 0 {
				add(n.Args[0])
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if fn, _ := p.TypesInfo.Uses[sel.Sel].(*types.Func); fn != nil && changes[fn] {
					add(sel.X)
				}
			}
		}
		return true
	})
	return out
}

// isDaemon: t is Daemon or *Daemon.
func isDaemon(t types.Type, daemon *types.Struct) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Underlying() == daemon
}
