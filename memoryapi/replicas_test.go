package memoryapi_test

import (
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

// What one replica stores, another reads, lists, finds and deletes: the
// memory is the store's, not a replica's.
func TestMemoryAcrossReplicas(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, withUsers, func(t *testing.T, replicas []*servertest.Server) {
		a, b := replicas[0].As(bobToken), replicas[1].As(bobToken)
		servertest.MustStatus(t, put(a, "/memory/facts/home", `{"value":"Lisbon","text":"Bob lives in Lisbon"}`), 200)
		servertest.MustStatus(t, b.Get("/memory/facts/home"), 200)
		if p := decode[page](t, b.Post("/memory/search", `{"query":"where does Bob live? Lisbon"}`)); len(p.Items) != 1 || p.Items[0].Key != "home" {
			t.Fatalf("the other replica's search found %+v", p.Items)
		}
		servertest.MustStatus(t, b.Do("DELETE", "/memory/facts/home", "", nil), 204)
		servertest.MustStatus(t, a.Get("/memory/facts/home"), 404)
	})
}
