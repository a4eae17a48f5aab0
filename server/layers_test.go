package server

import (
	"os/exec"
	"strings"
	"testing"
)

// The transports and the runtime see the store only through the
// store interface, and no transport imports another: only this
// package (the composition root) picks a store implementation and
// assembles the transports.
func TestLayers(t *testing.T) {
	const mod = "github.com/harnest/harnest/"
	transports := []string{"neutral", "neutral/apidoc", "live", "agui", "a2a", "relay", "mcpapi", "openaiapi", "skills", "routerapi", "playground"}
	forbidden := []string{"github.com/redis/go-redis", "github.com/alicebob/miniredis",
		mod + "store/redisstore", mod + "store/memstore", mod + "store/stores", mod + "server"}
	for _, pkg := range append([]string{"runtime", "store", "backend"}, transports...) {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		for _, dep := range deps {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
			for _, other := range transports {
				if other != pkg && !strings.HasPrefix(pkg, other+"/") && !strings.HasPrefix(other, pkg+"/") && dep == mod+other {
					t.Errorf("transport %s imports transport %s", pkg, other)
				}
			}
		}
	}
}
