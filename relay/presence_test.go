package relay_test

import (
	"context"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay"
)

func TestConnected(t *testing.T) {
	eachStore(t, envSetup{}, func(t *testing.T, e *env) {
		// A second Relay over the server's store sees its participants.
		rl, err := relay.New(relay.Options{Store: e.Store, Owners: map[string]bool{"alice": true, "carol": true}, FirstOwner: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		laptop := config.RelayBackend{Name: "Laptop", Kind: "cli"}
		connected := func(b config.RelayBackend, user string) bool {
			t.Helper()
			ok, err := rl.Connected(ctx, b, user)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if connected(laptop, "alice") {
			t.Fatal("connected before any pairing")
		}
		_, id := e.pair("Laptop", "cli")
		if !connected(laptop, "alice") || !connected(config.RelayBackend{}, "alice") {
			t.Fatal("not connected once paired")
		}
		if connected(config.RelayBackend{Name: "Desktop"}, "alice") {
			t.Error("connected through a participant of another name")
		}
		if connected(laptop, "carol") {
			t.Error("connected through another owner's participant")
		}
		if !connected(laptop, "bob") {
			t.Error("a visitor's turns go to the first owner's participants")
		}
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+id+"/pause", ownerToken, ""), 200)
		if connected(laptop, "alice") {
			t.Error("connected while paused")
		}
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+id+"/resume", ownerToken, ""), 200)
		if !connected(laptop, "alice") {
			t.Error("not connected once resumed")
		}
		mustStatus(t, e.do("POST", "/owner/outside-agents/participants/"+id+"/disconnect", ownerToken, ""), 204)
		if connected(laptop, "alice") {
			t.Error("connected after the disconnect")
		}
	})
}
