package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneAuthenticator checks that a replica builds one authenticator:
// the module's code (tests aside) calls auth.New once, in server, and
// every part that asks who the caller or the owner is (the doors'
// middleware, /live, the OpenAI door, the relay) is handed that one.
func TestOneAuthenticator(t *testing.T) {
	var calls []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "New" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "auth" {
					calls = append(calls, path)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || filepath.Dir(calls[0]) != filepath.Join("..", "server") {
		t.Fatalf("auth.New is called in %q; a replica builds one authenticator, in server, and hands it to every part", calls)
	}
}
