package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The house: rooms by what they do, each owning its state. These checks
// resolve types (go/packages) over the module's non-test code, so a
// method call that changes a field counts as much as an assignment.

const module = "github.com/herdrtabrenamer/herdrtabrenamer"

// goosList are the systems the house is checked for: a room's files and
// imports differ by build tags, and the verdict must not depend on the
// machine the test runs on.
var goosList = []string{"linux", "darwin", "windows"}

// build is the module's non-test packages as one GOOS compiles them.
type build struct {
	goos string
	pkgs []*packages.Package
}

var (
	loadOnce sync.Once
	builds   []build
	loadErr  error
)

// loadModule loads every package of the module with its syntax and
// types, once for each GOOS of goosList.
func loadModule(t *testing.T) []build {
	t.Helper()
	if testing.Short() {
		t.Skip("loads the whole module with its types; not in -short")
	}
	loadOnce.Do(func() {
		for _, goos := range goosList {
			cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
				packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports, Tests: false,
				Env: append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")}
			pkgs, err := packages.Load(cfg, "./...")
			if err != nil {
				loadErr = fmt.Errorf("GOOS=%s: %w", goos, err)
				return
			}
			for _, p := range pkgs {
				for _, e := range p.Errors {
					loadErr = fmt.Errorf("GOOS=%s: %s: %v", goos, p.PkgPath, e)
					return
				}
			}
			builds = append(builds, build{goos, pkgs})
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return builds
}

// findings gathers a check's complaints over every GOOS and says each
// once, with the systems it holds for.
type findings struct {
	goos  string
	on    map[string][]string
	order []string
}

func (f *findings) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if f.on == nil {
		f.on = map[string][]string{}
	}
	if _, ok := f.on[msg]; !ok {
		f.order = append(f.order, msg)
	}
	if !slices.Contains(f.on[msg], f.goos) {
		f.on[msg] = append(f.on[msg], f.goos)
	}
}

// eachBuild runs check over the module as each GOOS builds it, and
// reports what it found.
func eachBuild(t *testing.T, check func(f *findings, pkgs []*packages.Package)) {
	t.Helper()
	f := &findings{}
	for _, b := range loadModule(t) {
		f.goos = b.goos
		check(f, b.pkgs)
	}
	for _, msg := range f.order {
		t.Errorf("%s (GOOS %s)", msg, strings.Join(f.on[msg], ", "))
	}
}

// rel is a package's path inside the module ("" for the root).
func rel(p *packages.Package) string {
	return strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, module), "/")
}

// Rooms with bounds of their own, tighter than every room's: the root
// (the commands) adapts, it does not decide, and the daemon coordinates.
var roomBounds = map[string]struct{ files, lines, imports int }{
	"":       {files: 20, lines: 1800, imports: 15},
	"daemon": {files: 16, lines: 2400},
}

// maxMethods bounds the methods of the daemon's two owner types.
const maxMethods = 25

// TestTheHouse checks the shape of the rooms: a coordinator of few
// methods, no room over its bounds (20 files and 3,000 lines unless
// roomBounds says less), no JSON decoded in the daemon, herdr's process
// facts built only where they are read.
func TestTheHouse(t *testing.T) {
	eachBuild(t, func(f *findings, pkgs []*packages.Package) {
		for _, p := range pkgs {
			r := rel(p)
			checkRoomSize(f, p, r)
			if r == "daemon" {
				for _, name := range []string{"Daemon", "loop"} {
					if n := methodCount(p, name); n > maxMethods {
						f.errorf("daemon.%s has %d methods, over %d: give what it does a room of its own", name, n, maxMethods)
					}
				}
				for path := range p.Imports {
					if path == "encoding/json" || strings.HasSuffix(path, "go-json") {
						f.errorf("daemon imports %s: herdr's JSON is decoded in package herdr", path)
					}
				}
			}
			if r != "herdr" && r != "procinfo" && !strings.HasPrefix(r, "herdr/") {
				checkNoProcessInfo(f, p)
			}
		}
	})
}

// checkRoomSize: no package outside the simulator and integration/ over
// its bounds in files, lines of non-test code and packages of the module
// it imports.
func checkRoomSize(f *findings, p *packages.Package, r string) {
	if r == "herdr/herdrsim" || r == "integration" || strings.HasPrefix(r, "integration/") {
		return
	}
	bound, ok := roomBounds[r]
	if !ok {
		bound.files, bound.lines = 20, 3000
	}
	lines := 0
	for _, file := range p.Syntax {
		lines += p.Fset.File(file.Pos()).LineCount()
	}
	name := p.PkgPath
	if r == "" {
		name = "the root package"
	}
	if len(p.Syntax) > bound.files || lines > bound.lines {
		f.errorf("%s has %d files and %d lines: over %d or %d, split it by what it does", name, len(p.Syntax), lines, bound.files, bound.lines)
	}
	if bound.imports > 0 {
		if n := len(moduleImports(p)); n > bound.imports {
			f.errorf("%s imports %d of the module's packages, over %d: hand a room the work that needs them", name, n, bound.imports)
		}
	}
}

// moduleImports are the module's packages p imports.
func moduleImports(p *packages.Package) []string {
	var out []string
	for path := range p.Imports {
		if path == module || strings.HasPrefix(path, module+"/") {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
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
func checkNoProcessInfo(f *findings, p *packages.Package) {
	for _, lit := range compositeLiterals(p, module+"/herdr", "ProcessInfo") {
		f.errorf("%s: builds a herdr.ProcessInfo: only herdr and procinfo may", position(p, lit))
	}
}

// TestMemoryChangesOnlyThroughItsVerbs: no field of a type declared in
// package state is written (assigned, ++ or --, handed to delete or
// clear) outside package state.
func TestMemoryChangesOnlyThroughItsVerbs(t *testing.T) {
	eachBuild(t, func(fs *findings, pkgs []*packages.Package) {
		for _, p := range pkgs {
			if rel(p) == "state" {
				continue
			}
			for _, f := range p.Syntax {
				for _, w := range fieldWrites(p, f) {
					if v, ok := p.TypesInfo.Uses[w.Sel].(*types.Var); ok && v.IsField() && v.Pkg() != nil && v.Pkg().Path() == module+"/state" {
						fs.errorf("%s: writes state's field %s: use a verb of state.Tx", position(p, w), v.Name())
					}
				}
			}
		}
	})
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
	eachBuild(t, func(fs *findings, pkgs []*packages.Package) {
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
					fs.errorf("daemon: field Daemon.%s is changed in %d files (%s): give it an owner type whose methods change it",
						field, len(files), strings.Join(files, ", "))
				}
			}
		}
	})
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

// position is where n is, with the file's path inside the module: the
// same on every machine and for every GOOS.
func position(p *packages.Package, n ast.Node) string {
	pos := p.Fset.Position(n.Pos())
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, pos.Filename); err == nil {
			pos.Filename = filepath.ToSlash(r)
		}
	}
	return pos.String()
}

// compositeLiterals are p's composite literals of the named type declared
// in package pkg.
func compositeLiterals(p *packages.Package, pkg, name string) []*ast.CompositeLit {
	var out []*ast.CompositeLit
	for _, f := range p.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			t := p.TypesInfo.TypeOf(lit)
			if ptr, ok := t.(*types.Pointer); ok {
				t = ptr.Elem()
			}
			if named, ok := t.(*types.Named); ok && named.Obj().Pkg() != nil &&
				named.Obj().Pkg().Path() == pkg && named.Obj().Name() == name {
				out = append(out, lit)
			}
			return true
		})
	}
	return out
}

// ownershipMemory is the type the ownership rule reads a target's memory
// as, and the package that declares it: the one place its input is made.
const ownershipPkg, ownershipMemory = module + "/owner", "Memory"

// TestOwnershipInputMadeInItsRoom: no composite literal of the ownership
// rule's memory outside the package that declares it. A caller that
// builds one by hand restates which of the memory's fields the rule
// reads; the room builds it from a memory entry, or names the partial
// memory a caller that knows only labels holds.
func TestOwnershipInputMadeInItsRoom(t *testing.T) {
	eachBuild(t, func(f *findings, pkgs []*packages.Package) {
		n := 0
		for _, p := range pkgs {
			if p.PkgPath == ownershipPkg {
				continue
			}
			for _, lit := range compositeLiterals(p, ownershipPkg, ownershipMemory) {
				n++
				f.errorf("%s: builds a %s.%s by hand: ask its room for it", position(p, lit), filepath.Base(ownershipPkg), ownershipMemory)
			}
		}
		if n > 0 {
			f.errorf("%d composite literals of the ownership memory outside %s", n, filepath.Base(ownershipPkg))
		}
	})
}

// forbiddenImports are imports that would point the house's arrows the
// wrong way: a room below importing one above it.
var forbiddenImports = map[string][]string{
	"claim": {"renamer", "pass", "daemon"},
	"owner": {"renamer", "pass", "daemon", "claim"},
	"namer": {"owner", "state", "renamer", "pass", "daemon"},
}

// TestImportsPointOneWay checks forbiddenImports.
func TestImportsPointOneWay(t *testing.T) {
	eachBuild(t, func(f *findings, pkgs []*packages.Package) {
		for _, p := range pkgs {
			for _, bad := range forbiddenImports[rel(p)] {
				if _, ok := p.Imports[module+"/"+bad]; ok {
					f.errorf("%s imports %s: imports point one way, down the house", rel(p), bad)
				}
			}
		}
	})
}

// TestHerdrErrorCodesTyped: herdr's "..._not_found" codes are named in
// package herdr alone; elsewhere a typed check (errors.Is) asks for them,
// so a code misspelt fails to compile rather than to match.
func TestHerdrErrorCodesTyped(t *testing.T) {
	eachBuild(t, func(f *findings, pkgs []*packages.Package) {
		n := 0
		for _, p := range pkgs {
			if r := rel(p); r == "herdr" || strings.HasPrefix(r, "herdr/") {
				continue
			}
			for _, file := range p.Syntax {
				ast.Inspect(file, func(node ast.Node) bool {
					lit, ok := node.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return true
					}
					if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasSuffix(s, "_not_found") {
						n++
						f.errorf("%s: herdr's error code %q as a string: use herdr's typed error", position(p, lit), s)
					}
					return true
				})
			}
		}
		if n > 0 {
			f.errorf("%d *_not_found string literals outside herdr/", n)
		}
	})
}

// TestRenameErrIsAnError: what came of a rename keeps its error an error,
// so that errors.Is and errors.As still tell why it failed.
func TestRenameErrIsAnError(t *testing.T) {
	eachBuild(t, func(f *findings, pkgs []*packages.Package) {
		for _, p := range pkgs {
			if rel(p) != "renamer" {
				continue
			}
			st := p.Types.Scope().Lookup("Rename").Type().Underlying().(*types.Struct)
			errType := types.Universe.Lookup("error").Type()
			for i := range st.NumFields() {
				if fld := st.Field(i); fld.Name() == "Err" && !types.Identical(fld.Type(), errType) {
					f.errorf("renamer.Rename.Err is a %s: keep it an error", fld.Type())
				}
			}
		}
	})
}
