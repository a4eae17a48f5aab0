package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every package but the store's own and the composition root takes only
// the store methods it calls: it holds the store as one or more
// interfaces, from package store (a slice, such as store.Tasks) or its own
// (a few methods of several slices), and each method of those is called
// somewhere in the package or needed by a function it hands the store to.
// TestStoreSlices checks that over the module's real code, type-checked;
// TestStoreSlicesCheck shows on small packages what it finds.

// storeExempt are the packages (with their sub-packages) that may hold the
// whole store: the store and its implementations, and the composition root
// that opens one and wires it to everything else.
var storeExempt = []string{"store", "server"}

// storeTaking is what one package takes of the store and what it uses.
type storeTaking struct {
	// takes maps each store interface the package holds the store as (its
	// own or package store's) to its methods.
	takes map[string][]string
	// used are the store methods it calls, or hands on to an interface
	// that has them.
	used map[string]bool
}

// unused lists the methods the package takes and never uses, sorted.
func (s storeTaking) unused() []string {
	var out []string
	for _, methods := range s.takes {
		for _, m := range methods {
			if !s.used[m] && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.Sort(out)
	return out
}

// storeInterface reports whether t is an interface the store is held as:
// a named interface of package store or of pkg itself that has methods and
// that the whole store (whole) implements.
func storeInterface(t types.Type, pkg *types.Package, whole types.Type) (*types.Named, bool) {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return nil, false
	}
	iface, ok := named.Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 {
		return nil, false
	}
	p := named.Obj().Pkg()
	if p != pkg && p.Path() != module+"/store" {
		return nil, false
	}
	return named, types.Implements(whole, iface)
}

// methodNames lists the methods of the interface t.
func methodNames(t types.Type) []string {
	iface := t.Underlying().(*types.Interface)
	out := make([]string, iface.NumMethods())
	for i := range out {
		out[i] = iface.Method(i).Name()
	}
	slices.Sort(out)
	return out
}

// takingOf finds what the type-checked package pkg (its files and their
// info) takes of the store and what it uses. whole is store.Store.
func takingOf(pkg *types.Package, files []*ast.File, info *types.Info, whole types.Type) storeTaking {
	s := storeTaking{takes: map[string][]string{}, used: map[string]bool{}}
	isStore := func(t types.Type) bool {
		if t == nil {
			return false
		}
		named, ok := storeInterface(t, pkg, whole)
		if ok {
			s.takes[named.Obj().Pkg().Name()+"."+named.Obj().Name()] = methodNames(named)
		}
		return ok
	}
	// What it holds the store as: its own store interfaces and those of
	// package store it names.
	for _, name := range pkg.Scope().Names() {
		if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok {
			isStore(tn.Type())
		}
	}
	for _, obj := range info.Uses {
		if tn, ok := obj.(*types.TypeName); ok {
			isStore(tn.Type())
		}
	}
	// What it calls: every interface method selected on a store interface.
	for _, sel := range info.Selections {
		fn, ok := sel.Obj().(*types.Func)
		if !ok {
			continue
		}
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
			if _, ok := storeInterface(recv.Type(), pkg, whole); ok {
				s.used[fn.Name()] = true
			}
		}
	}
	// What it hands on: a store interface given where another interface
	// is wanted (or to another package, which calls it there) uses the
	// methods of that one.
	handOn := func(from ast.Expr, to types.Type, foreign bool) {
		if to == nil || !types.IsInterface(to) || !isStore(info.TypeOf(from)) {
			return
		}
		if types.Identical(info.TypeOf(from), to) && !foreign {
			return
		}
		iface := to.Underlying().(*types.Interface)
		for i := range iface.NumMethods() {
			s.used[iface.Method(i).Name()] = true
		}
	}
	handOns(files, info, pkg, handOn)
	return s
}

// handOns finds, in files, every expression given where a value of a type
// is wanted (a call's argument, an assignment, a return, a field or an
// element of a composite literal, a conversion) and tells handOn of it,
// with whether the place is another package's (a function or field of
// another package).
func handOns(files []*ast.File, info *types.Info, pkg *types.Package, handOn func(from ast.Expr, to types.Type, foreign bool)) {
	for _, f := range files {
		var results []*types.Tuple // of the enclosing functions
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Body != nil {
					results = append(results, info.Defs[n.Name].Type().(*types.Signature).Results())
					ast.Inspect(n.Body, visit)
					results = results[:len(results)-1]
				}
				return false
			case *ast.FuncLit:
				results = append(results, info.TypeOf(n).(*types.Signature).Results())
				ast.Inspect(n.Body, visit)
				results = results[:len(results)-1]
				return false
			case *ast.ReturnStmt:
				if len(results) > 0 && results[len(results)-1].Len() == len(n.Results) {
					for i, r := range n.Results {
						handOn(r, results[len(results)-1].At(i).Type(), false)
					}
				}
			case *ast.CallExpr:
				sig, ok := info.TypeOf(n.Fun).Underlying().(*types.Signature)
				if !ok {
					if len(n.Args) == 1 { // a conversion
						handOn(n.Args[0], info.TypeOf(n.Fun), false)
					}
					break
				}
				foreign := foreignObject(info, n.Fun, pkg)
				for i, arg := range n.Args {
					switch {
					case sig.Variadic() && i >= sig.Params().Len()-1:
						last := sig.Params().At(sig.Params().Len() - 1).Type()
						if n.Ellipsis.IsValid() {
							handOn(arg, last, foreign)
						} else {
							handOn(arg, last.(*types.Slice).Elem(), foreign)
						}
					case i < sig.Params().Len():
						handOn(arg, sig.Params().At(i).Type(), foreign)
					}
				}
			case *ast.AssignStmt:
				if len(n.Lhs) == len(n.Rhs) {
					for i := range n.Lhs {
						handOn(n.Rhs[i], info.TypeOf(n.Lhs[i]), foreignObject(info, n.Lhs[i], pkg))
					}
				}
			case *ast.ValueSpec:
				if n.Type != nil {
					for _, v := range n.Values {
						handOn(v, info.TypeOf(n.Type), false)
					}
				}
			case *ast.CompositeLit:
				handOnFields(n, info, pkg, handOn)
			}
			return true
		}
		ast.Inspect(f, visit)
	}
}

// foreignObject reports whether the function called or the variable
// assigned by expr (a name or a selector) is another package's than pkg.
func foreignObject(info *types.Info, expr ast.Expr, pkg *types.Package) bool {
	var id *ast.Ident
	switch e := ast.Unparen(expr).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return false
	}
	obj := info.Uses[id]
	return obj != nil && obj.Pkg() != nil && obj.Pkg() != pkg
}

// handOnFields hands on each element of a composite literal to the type of
// its field (another package's field is foreign) or element.
func handOnFields(lit *ast.CompositeLit, info *types.Info, pkg *types.Package, handOn func(ast.Expr, types.Type, bool)) {
	t := info.TypeOf(lit)
	if t == nil {
		return
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for i, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				if field, ok := info.Uses[kv.Key.(*ast.Ident)].(*types.Var); ok {
					handOn(kv.Value, field.Type(), field.Pkg() != pkg)
				}
			} else if i < u.NumFields() {
				handOn(e, u.Field(i).Type(), u.Field(i).Pkg() != pkg)
			}
		}
	case *types.Slice, *types.Array, *types.Map:
		elem := u.(interface{ Elem() types.Type }).Elem()
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Value
			}
			handOn(e, elem, false)
		}
	}
}

// listedPackage is what `go list -json` says of a package.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
}

// listModule lists the module's packages and everything they import, with
// their export data (compiled as `go build` would).
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-export", "-deps",
		"-json=ImportPath,Dir,GoFiles,Export,Standard", module+"/...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export -deps %s/...: %v", module, err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// checkPackage type-checks one listed package (its non-test files) with
// imp and returns what it takes of the store.
func checkPackage(fset *token.FileSet, p listedPackage, imp types.Importer, whole types.Type) (storeTaking, error) {
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return storeTaking{}, err
		}
		files = append(files, f)
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(p.ImportPath, fset, files, info)
	if err != nil {
		return storeTaking{}, err
	}
	return takingOf(pkg, files, info, whole), nil
}

// storeChecker lists the module with its export data and returns an
// importer of it and store.Store.
func storeChecker(t *testing.T) ([]listedPackage, *token.FileSet, types.Importer, types.Type) {
	t.Helper()
	listed := listModule(t)
	exports := map[string]string{}
	for _, p := range listed {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	storePkg, err := imp.Import(module + "/store")
	if err != nil {
		t.Fatal(err)
	}
	return listed, fset, imp, storePkg.Scope().Lookup("Store").Type()
}

// TestStoreSlices checks that no package of the module but the exempt
// ones takes a store method it never uses.
func TestStoreSlices(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the whole module")
	}
	listed, fset, imp, whole := storeChecker(t)
	checked := 0
	for _, p := range listed {
		// A package built again for one command's profile (PGO) is listed
		// as "path [command]": the plain one is checked.
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok || strings.Contains(rel, " [") || underAny(rel, storeExempt) || len(p.GoFiles) == 0 {
			continue
		}
		taking, err := checkPackage(fset, p, imp, whole)
		if err != nil {
			t.Errorf("type-checking %s: %v", rel, err)
			continue
		}
		checked++
		if len(taking.takes) == 0 {
			continue
		}
		t.Logf("%s takes %s: %d methods", rel, strings.Join(slices.Sorted(maps.Keys(taking.takes)), ", "), len(taking.used))
		if unused := taking.unused(); len(unused) > 0 {
			t.Errorf("%s takes store methods it never calls: %s; take a narrower slice of package store, or declare the few methods it calls",
				rel, strings.Join(unused, ", "))
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d packages: the module's listing went wrong", checked)
	}
}

// TestStoreSlicesCheck runs the check on small packages: what each takes
// and never uses.
func TestStoreSlicesCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the whole module")
	}
	_, fset, imp, whole := storeChecker(t)
	const head = "package p\n\nimport (\n\t\"context\"\n\n\t\"github.com/harnest/harnest/store\"\n)\n\n"
	cases := []struct {
		name, src string
		want      []string // a sample of what is unused
		none      bool     // nothing is unused
	}{
		{"the whole store for one call",
			"type S struct{ st store.Store }\n\nfunc (s S) ready(ctx context.Context) error { return s.st.Ping(ctx) }\n",
			[]string{"GetTask", "PutThread", "TakeUserWindow"}, false},
		{"a slice, all of it called",
			"func f(ctx context.Context, th store.Threads) error {\n\t_, _, _ = th.GetThread(ctx, \"u\", \"t\")\n" +
				"\treturn th.PutThread(ctx, \"u\", \"t\", store.ThreadRecord{})\n}\n",
			nil, true},
		{"its own interface, a method never called",
			"type Store interface {\n\tstore.Threads\n\tGetWait(ctx context.Context, user, id string) (store.Wait, bool, error)\n}\n\n" +
				"func f(ctx context.Context, st Store) error {\n\t_, _, _ = st.GetThread(ctx, \"u\", \"t\")\n" +
				"\treturn st.PutThread(ctx, \"u\", \"t\", store.ThreadRecord{})\n}\n",
			[]string{"GetWait"}, false},
		{"handed on to a narrower interface of its own",
			"type reader interface {\n\tGetThread(ctx context.Context, user, thread string) (store.ThreadRecord, bool, error)\n}\n\n" +
				"func read(ctx context.Context, r reader) { _, _, _ = r.GetThread(ctx, \"u\", \"t\") }\n\n" +
				"func f(ctx context.Context, th store.Threads) { read(ctx, th) }\n",
			[]string{"PutThread"}, false},
		{"handed on to another package",
			"var _ context.Context\n\nfunc f(st store.Store) bool { return store.ObserveCommands(st, nil) }\n",
			nil, true},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(head+c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			p := listedPackage{ImportPath: fmt.Sprintf("example.com/p%d", i), Dir: dir, GoFiles: []string{"p.go"}}
			taking, err := checkPackage(fset, p, imp, whole)
			if err != nil {
				t.Fatal(err)
			}
			unused := taking.unused()
			if c.none && len(unused) > 0 {
				t.Errorf("unused: %v, want none", unused)
			}
			for _, m := range c.want {
				if !slices.Contains(unused, m) {
					t.Errorf("unused: %v, want %s among them", unused, m)
				}
			}
			if !c.none && len(c.want) == 1 && len(unused) != 1 {
				t.Errorf("unused: %v, want only %v", unused, c.want)
			}
		})
	}
}
