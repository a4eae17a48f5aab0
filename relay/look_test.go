package relay_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/harnest/harnest/server/servertest"
)

const aliveURI = "https://netshow.ai/a2a/ext/alive/v1"

// lookCard is an exchange body whose card carries another extension and
// the alive extension with params.
func lookCard(code, name, kind string, params map[string]any) string {
	b, _ := json.Marshal(map[string]any{"code": code, "card": map[string]any{
		"name": name, "kind": kind,
		"capabilities": map[string]any{"streaming": false, "extensions": []any{
			map[string]any{"uri": "https://example.com/ext/other/v1"},
			map[string]any{"uri": aliveURI, "required": false, "params": params},
		}},
	}})
	return string(b)
}

// pairWithLook creates a code on creator and exchanges it on exchanger
// with a card carrying the alive params; it returns the session token and
// participant ID.
func pairWithLook(t *testing.T, creator, exchanger *env, name string, params map[string]any) (string, string) {
	t.Helper()
	r := creator.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"`+name+`","kind":"cli"}`)
	mustStatus(t, r, 201)
	r = exchanger.do("POST", "/api/outside-agents/v1/pairings/exchange", "", lookCard(r.JSON(t)["code"].(string), name, "cli", params))
	mustStatus(t, r, 201) // an invalid look never stops the pairing
	v := r.JSON(t)
	return v["token"].(string), v["participant_id"].(string)
}

// shownLook is the look object the owner's participant list shows for
// pid; nil when it shows none.
func shownLook(t *testing.T, e *env, pid string) map[string]any {
	t.Helper()
	r := e.do("GET", "/owner/outside-agents/participants", ownerToken, "")
	mustStatus(t, r, 200)
	var v struct {
		Participants []struct {
			ID   string         `json:"participant_id"`
			Look map[string]any `json:"look"`
		}
	}
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Participants {
		if p.ID == pid {
			return p.Look
		}
	}
	t.Fatalf("participant %s not listed: %s", pid, r.Body)
	return nil
}

// wantPlum checks the look of the valid card.
func wantPlum(t *testing.T, where string, look map[string]any) {
	t.Helper()
	colors, _ := look["colors"].(map[string]any)
	if look["look"] != "dots-purple" || look["display_name"] != "Plum" || colors["line"] != "#a774e2" || colors["background"] != "#f4ecfd" {
		t.Fatalf("%s shows the look %v, want dots-purple, Plum and its colors", where, look)
	}
}

func TestLookShownAcrossReplicas(t *testing.T) {
	servertest.EachStoreReplicas(t, 2, envSetup{}.serverSetup(&clock{}), func(t *testing.T, replicas []*servertest.Server) {
		a, b := newEnvOf(replicas[0], &clock{}), newEnvOf(replicas[1], &clock{})
		plum := map[string]any{"look": "dots-purple", "colors": map[string]any{"line": "#a774e2", "background": "#f4ecfd"}, "display_name": "Plum"}
		token, pid := pairWithLook(t, a, b, "Plum box", plum)
		wantPlum(t, "the participant list on the other replica", shownLook(t, a, pid))
		wantPlum(t, "the participant list on the pairing replica", shownLook(t, b, pid))

		// The feed shows the sender's look: its newest entries on one
		// replica, its live stream on the other.
		stream := a.followFeed(t)
		mustStatus(t, b.do("POST", "/api/outside-agents/v1/notices", token, `{"text":"Two pages done."}`), 202)
		frame := stream.collect(t, 1)[0]
		if frame.Data["participant_id"] != pid {
			t.Fatalf("feed frame %q", frame.Raw)
		}
		streamed, _ := frame.Data["look"].(map[string]any)
		wantPlum(t, "the feed stream", streamed)
		r := b.do("GET", "/owner/outside-agents/feed", ownerToken, "")
		mustStatus(t, r, 200)
		var feed struct {
			Items []struct {
				Look map[string]any `json:"look"`
			}
		}
		if err := json.Unmarshal(r.Body, &feed); err != nil || len(feed.Items) != 1 {
			t.Fatalf("feed %s: %v", r.Body, err)
		}
		wantPlum(t, "the feed", feed.Items[0].Look)

		// A participant without the extension shows no look.
		_, plain := a.pair("Plain box", "cli")
		if look := shownLook(t, b, plain); look != nil {
			t.Fatalf("a card without the extension shows %v", look)
		}
	})
}

func TestInvalidLookIgnored(t *testing.T) {
	// A local https server on loopback that counts its requests: the
	// guard refuses loopback before it dials, so it must stay untouched.
	var hits atomic.Int32
	local := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"look":"owl"}`))
	}))
	t.Cleanup(local.Close)
	cases := map[string]map[string]any{
		// Addresses that are never fetched; all are IP literals or
		// localhost, so no name is looked up and nothing leaves
		// 127.0.0.0/8.
		"http alive_json":      {"look": "owl", "alive_json": "http://198.51.100.7/plum.alive.json"},
		"private alive_json":   {"look": "owl", "alive_json": "https://10.1.2.3/plum.alive.json"},
		"link-local":           {"look": "owl", "alive_json": "https://169.254.169.254/latest/meta-data"},
		"loopback alive_json":  {"look": "owl", "alive_json": local.URL + "/plum.alive.json"},
		"localhost alive_json": {"look": "owl", "alive_json": "https://localhost/plum.alive.json"},
		// Params that break a rule: the whole extension goes, valid parts
		// too.
		"unknown look":  {"look": "human-face", "display_name": "Plum"},
		"bad color":     {"look": "owl", "colors": map[string]any{"line": "purple"}},
		"name markup":   {"look": "owl", "display_name": "<b>Plum</b>"},
		"unknown param": {"look": "owl", "voice": "deep"},
		"no look":       {"display_name": "Plum"},
	}
	servertest.EachStoreReplicas(t, 2, envSetup{}.serverSetup(&clock{}), func(t *testing.T, replicas []*servertest.Server) {
		a, b := newEnvOf(replicas[0], &clock{}), newEnvOf(replicas[1], &clock{})
		for name, params := range cases {
			token, pid := pairWithLook(t, a, b, "Box "+name, params)
			if look := shownLook(t, a, pid); look != nil {
				t.Errorf("%s: shows the look %v; the extension must be ignored whole", name, look)
			}
			// The pairing works as any other.
			r := b.do("GET", "/api/outside-agents/v1/session/status", token, "")
			mustStatus(t, r, 200)
		}
		// A card whose capabilities are not what the extension needs still
		// pairs, with no look.
		r := a.do("POST", "/owner/outside-agents/pairings", ownerToken, `{"name":"Odd box","kind":"cli"}`)
		code := r.JSON(t)["code"].(string)
		r = b.do("POST", "/api/outside-agents/v1/pairings/exchange", "",
			`{"code":"`+code+`","card":{"name":"Odd box","kind":"cli","capabilities":{"extensions":"`+aliveURI+`"}}}`)
		mustStatus(t, r, 201)
		if look := shownLook(t, a, r.JSON(t)["participant_id"].(string)); look != nil {
			t.Fatalf("odd capabilities show %v", look)
		}
	})
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback alive_json was fetched %d times", n)
	}
}
