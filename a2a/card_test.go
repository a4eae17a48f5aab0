package a2a

import (
	"context"
	"strings"
	"testing"
)

func TestMountErrorsNameTheInterface(t *testing.T) {
	for _, c := range []struct {
		iface map[string]any
		want  string
	}{
		{map[string]any{"url": "http://h/a", "protocolBinding": "SLIMRPC", "protocolVersion": "1.0"}, `supportedInterfaces[1]: protocolBinding "SLIMRPC"`},
		{map[string]any{"url": "http://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "0.2"}, `supportedInterfaces[1]: protocolVersion "0.2"`},
		{map[string]any{"url": "http://h/a{x}", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}, `supportedInterfaces[1]: url`},
	} {
		card := testCard("http://h", true)
		card["supportedInterfaces"] = []any{dig(card, "supportedInterfaces", 0), c.iface}
		_, err := parseMounts(card)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one naming %s", c.iface, err, c.want)
		}
	}
	mounts, err := parseMounts(testCard("http://h", true))
	if err != nil || len(mounts) != 2 || len(mounts[0].versions) != 2 || mounts[1].binding != bindingREST {
		t.Fatalf("mounts %+v %v", mounts, err)
	}
	for _, cap := range []string{"pushNotifications", "extendedAgentCard"} { // extendedAgentCard: without the file
		card := testCard("http://h", true)
		card["capabilities"] = map[string]any{cap: true}
		if _, err := buildCard(context.Background(), Options{Card: card}); err == nil || !strings.Contains(err.Error(), cap) {
			t.Errorf("%s: %v", cap, err)
		}
	}
}

func TestServedCard(t *testing.T) {
	card := testCard("http://127.0.0.1:1907", true)
	info, err := buildCard(context.Background(), Options{Card: card, PublicBaseURL: "https://agents.example.com/team/"})
	if err != nil {
		t.Fatal(err)
	}
	c := info.card
	if got := str(c, "supportedInterfaces", 0, "url"); got != "https://agents.example.com/team/a2a" {
		t.Errorf("interface url %q", got)
	}
	if str(c, "protocolVersion") != "0.3.0" || str(c, "url") != "https://agents.example.com/team/a2a" || str(c, "preferredTransport") != "JSONRPC" {
		t.Errorf("0.3 fields %v %v %v", c["protocolVersion"], c["url"], c["preferredTransport"])
	}
	if str(c, "additionalInterfaces", 1, "transport") != "HTTP+JSON" || str(c, "additionalInterfaces", 1, "url") != "https://agents.example.com/team/rest" {
		t.Errorf("additionalInterfaces %v", c["additionalInterfaces"])
	}
	if str(card, "supportedInterfaces", 0, "url") != "http://127.0.0.1:1907/a2a" {
		t.Error("the configured card was modified")
	}
	// Without a 0.3 interface the card has no 0.3 fields.
	only10 := testCard("http://h", true)
	only10["supportedInterfaces"] = []any{dig(only10, "supportedInterfaces", 0)}
	info, _ = buildCard(context.Background(), Options{Card: only10})
	if info.card["url"] != nil || info.card["protocolVersion"] != nil {
		t.Errorf("0.3 fields on a 1.0-only card: %v", info.card)
	}
	if _, err := buildCard(context.Background(), Options{Card: card, PublicBaseURL: "ftp://x"}); err == nil {
		t.Error("a non-http public base URL is accepted")
	}
}
