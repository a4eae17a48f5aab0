package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// TestUsageAcrossProcesses: two harnest processes on one real Redis count
// every turn once, whichever process ran it: GET /usage on either says
// each user's turns, and an owner reads everyone's.
func TestUsageAcrossProcesses(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	auth := "auth:\n  tokens:\n" +
		"    - {token: e2e-alice-token-0123456789, user: alice}\n" +
		"    - {token: e2e-bob-token-0123456789, user: bob}\n" +
		"    - {token: e2e-owner-token-0123456789, user: owner, owner: true}\n"
	dir := agentFolder(t, "", prefixed(t)+auth)
	replicas := []*harnest{startHarnest(t, dir, nil, "--redis-url", url), startHarnest(t, dir, nil, "--redis-url", url)}
	bearer := func(who string) []string { return []string{"Authorization", "Bearer e2e-" + who + "-token-0123456789"} }
	turns := map[string]int{"alice": 5, "bob": 3}
	for who, n := range turns {
		for i := range n {
			r := replicas[i%2].post(t, "/responses", fmt.Sprintf(`{"input":"turn %d"}`, i), bearer(who)...)
			mustStatus(t, r, http.StatusOK)
		}
	}
	// turnsOf reads a page of usage as the turns of backend echo.
	turnsOf := func(r reply) int64 {
		t.Helper()
		mustStatus(t, r, http.StatusOK)
		var p struct {
			Days []struct {
				Turns   int64 `json:"turns"`
				ByModel []struct {
					Backend string `json:"backend"`
					Turns   int64  `json:"turns"`
				} `json:"byModel"`
			} `json:"days"`
		}
		if err := json.Unmarshal(r.Body, &p); err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, d := range p.Days {
			for _, l := range d.ByModel {
				if l.Backend != "echo" {
					t.Fatalf("a line of backend %q: %s", l.Backend, r.Body)
				}
			}
			sum += d.Turns
		}
		return sum
	}
	for i, h := range replicas {
		for who, n := range turns {
			if got := turnsOf(h.get(t, "/usage", bearer(who)...)); got != int64(n) {
				t.Errorf("replica %d: %s's usage counts %d turns; they ran %d", i, who, got, n)
			}
		}
		if got := turnsOf(h.get(t, "/usage?all=true", bearer("owner")...)); got != 8 {
			t.Errorf("replica %d: everyone's usage counts %d turns; 8 ran", i, got)
		}
		mustStatus(t, h.get(t, "/usage?user=bob", bearer("alice")...), http.StatusNotFound)
	}
}
