package a2a_test

import (
	"net/http"
	"testing"
)

// extendedCard is testCard with one more skill, as the folder loader lays
// agent-card.extended.yaml over agent-card.yaml.
func extendedCard() map[string]any {
	c := testCard("http://127.0.0.1:1907", true)
	c["skills"] = append(c["skills"].([]any), map[string]any{"id": "premium", "name": "Premium", "description": "More.", "tags": []any{"echo"}})
	return c
}

func TestExtendedCardServedOnEveryBinding(t *testing.T) {
	h := newHarness(t, setup{extended: extendedCard()})
	pub := h.do("GET", "/.well-known/agent-card.json", "").JSON(t)
	if dig(pub, "capabilities", "extendedAgentCard") != true || dig(pub, "supportsAuthenticatedExtendedCard") != true {
		t.Fatalf("the public card does not declare the extended card: %v %v", pub["capabilities"], pub["supportsAuthenticatedExtendedCard"])
	}
	if str(pub, "skills", 1, "id") != "" {
		t.Fatal("the public card shows the extended skills")
	}
	check := func(name string, card any) {
		t.Helper()
		if str(card, "skills", 1, "id") != "premium" || str(card, "supportedInterfaces", 0, "url") != h.URL+"/a2a" ||
			dig(card, "capabilities", "extendedAgentCard") != true {
			t.Errorf("%s: extended card %v", name, card)
		}
	}
	check("1.0 JSON-RPC", dig(h.rpc("1.0", "GetExtendedAgentCard", map[string]any{}, "X-Test-User", "alice").JSON(t), "result"))
	check("0.3 JSON-RPC", dig(h.rpc("", "agent/getAuthenticatedExtendedCard", nil, "X-Test-User", "alice").JSON(t), "result"))
	for _, path := range []string{"/rest/extendedAgentCard", "/rest/v1/card"} {
		r := h.do("GET", path, "", "X-Test-User", "alice")
		if r.Status != 200 || r.Header.Get("ETag") == "" || r.Header.Get("Last-Modified") == "" {
			t.Fatalf("%s: %d %v", path, r.Status, r.Header)
		}
		check(path, r.JSON(t))
		if again := h.do("GET", path, "", "X-Test-User", "alice", "If-None-Match", r.Header.Get("ETag")); again.Status != http.StatusNotModified {
			t.Errorf("%s revalidated: %d", path, again.Status)
		}
	}
}

func TestExtendedCardNeedsAnAuthenticatedCaller(t *testing.T) {
	h := newHarness(t, setup{extended: extendedCard()})
	e := h.rpc("1.0", "GetExtendedAgentCard", map[string]any{}, "X-Test-User", "-").JSON(t)
	if dig(e, "error", "code") != float64(-31401) || str(e, "error", "data", 0, "reason") != "UNAUTHENTICATED" {
		t.Errorf("1.0 JSON-RPC without a caller: %v", e)
	}
	e = h.rpc("", "agent/getAuthenticatedExtendedCard", nil, "X-Test-User", "-").JSON(t)
	if dig(e, "error", "code") != float64(-31401) {
		t.Errorf("0.3 JSON-RPC without a caller: %v", e)
	}
	r := h.do("GET", "/rest/extendedAgentCard", "", "X-Test-User", "-")
	if b := r.JSON(t); r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" || str(b, "error", "status") != "UNAUTHENTICATED" {
		t.Errorf("REST without a caller: %d %v %v", r.Status, r.Header, b)
	}
}

func TestExtendedCardNotDeclared(t *testing.T) {
	h := newHarness(t, setup{})
	pub := h.do("GET", "/.well-known/agent-card.json", "").JSON(t)
	if dig(pub, "capabilities", "extendedAgentCard") != nil || dig(pub, "supportsAuthenticatedExtendedCard") != nil {
		t.Fatalf("declared without a file: %v", pub)
	}
	if e := h.rpc("1.0", "GetExtendedAgentCard", map[string]any{}).JSON(t); dig(e, "error", "code") != float64(-32004) {
		t.Errorf("1.0: %v", e)
	}
	if e := h.rpc("", "agent/getAuthenticatedExtendedCard", nil).JSON(t); dig(e, "error", "code") != float64(-32007) {
		t.Errorf("0.3: %v", e)
	}
	if h.srv.ExtendedCard() != nil {
		t.Error("ExtendedCard without one")
	}
}
