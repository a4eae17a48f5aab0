package a2a_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server"
)

// Serve an agent folder over A2A: server.New mounts every interface its
// agent-card.yaml declares, beside the other transports, and serves the
// card at the well-known path with the public base URL in it.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	folder, err := config.Load("../examples/hello")
	if err != nil {
		log.Fatal(err)
	}
	folder.Config.Server.PublicBaseURL = "https://agents.example.com"
	srv, err := server.New(ctx, folder, server.Options{})
	if err != nil {
		log.Fatal(err) // an interface harnest cannot serve, named
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, l, time.Second) }()

	resp, err := http.Get("http://" + l.Addr().String() + "/.well-known/agent-card.json")
	if err != nil {
		log.Fatal(err)
	}
	var card struct {
		Name                string
		SupportedInterfaces []struct{ URL, ProtocolBinding, ProtocolVersion string }
	}
	err = json.NewDecoder(resp.Body).Decode(&card)
	resp.Body.Close()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(card.Name)
	for _, i := range card.SupportedInterfaces {
		fmt.Println(i.ProtocolBinding, i.ProtocolVersion, i.URL)
	}
	stop()
	if err := <-served; err != nil {
		log.Fatal(err)
	}
	// Output:
	// Hello
	// HTTP+JSON 1.0 https://agents.example.com
}
