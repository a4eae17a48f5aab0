package server

import (
	"net/http"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/memory"
	"github.com/harnest/harnest/memoryapi"
	"github.com/harnest/harnest/store"
)

// newMemory is the agent's long-term memory: its store slice, scoped by
// the agent's name, with the embedder spec.memory.embeddings names.
func newMemory(cfg config.Config, st store.Memory) (*memory.Service, error) {
	emb, err := memory.NewEmbedder(cfg.Spec.Memory.Embeddings, nil)
	if err != nil {
		return nil, err
	}
	return memory.New(memory.Options{Store: st, Agent: cfg.Metadata.Name, Embedder: emb}), nil
}

// mountMemory mounts the /memory routes and lists them in /agent.
func (s *Server) mountMemory(mux *http.ServeMux, endpoints map[string]string) {
	memoryapi.Register(mux, memoryapi.Options{Memory: s.memory, IsOwner: s.relay.IsOwner,
		MaxBodyBytes: int64(s.Folder.Config.Server.Limits.MaxRequestBytes)})
	for k, v := range memoryapi.Endpoints() {
		endpoints[k] = v
	}
}
