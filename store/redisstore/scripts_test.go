package redisstore

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// Every Lua script the package defines is loaded at Open: a script run in a
// pipeline cannot load itself. The test counts the redis.NewScript calls of
// the package's files and the distinct scripts of the list.
func TestEveryScriptIsLoaded(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	defined := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewScript" {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "redis" {
					defined++
				}
			}
			return true
		})
	}
	loaded := map[string]bool{}
	for _, sc := range scripts {
		loaded[sc.Hash()] = true
	}
	if len(loaded) != defined || len(scripts) != defined {
		t.Fatalf("the package defines %d scripts; scripts.go lists %d (%d distinct): add the missing ones to scripts", defined, len(scripts), len(loaded))
	}
}

// After Redis forgets the scripts (SCRIPT FLUSH, a restart, a failover),
// the operations that run scripts in a pipeline load them again.
func TestScriptsLoadAgainAfterAFlush(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSession(ctx, "u", "s", nil, "t"); err != nil {
			t.Fatalf("create after a flush: %v", err)
		}
		if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: "s", ResponseID: "r", Receipt: []byte(`{}`), Lease: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if err := s.rdb.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if ok, err := s.RenewLease(ctx, "u", "s", "r", "r1", 1, time.Minute); !ok || err != nil {
			t.Fatalf("renew after a flush: %v %v", ok, err)
		}
	})
}
