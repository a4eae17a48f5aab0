package a2a_test

import (
	"context"
	"log"
	"net/http"

	"github.com/harnest/harnest/runtime/store/stores"

	"github.com/harnest/harnest/a2a"
	"github.com/harnest/harnest/backend"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// Serve an agent folder over A2A: every interface of its agent-card.yaml,
// and the served card at the well-known path.
func ExampleServer_Register() {
	ctx := context.Background()
	folder, err := config.Load("examples/hello")
	if err != nil {
		log.Fatal(err)
	}
	st, err := stores.Open(ctx, stores.Options{KeyPrefix: folder.Config.Store.KeyPrefix})
	if err != nil {
		log.Fatal(err)
	}
	agent, err := backend.New(folder.Config.Spec.Backend, folder.Dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	svc := runtime.New(runtime.Options{Store: st, Agent: agent})
	if err := svc.Start(ctx); err != nil {
		log.Fatal(err)
	}
	srv, err := a2a.New(a2a.Options{
		Service: svc, Store: st, Card: folder.Card,
		PublicBaseURL: "https://agents.example.com",
	})
	if err != nil {
		log.Fatal(err) // an interface harnest cannot serve, named
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	mux.Handle("GET /.well-known/agent-card.json", srv.CardHandler())
	log.Fatal(http.ListenAndServe("127.0.0.1:1907", mux))
}
