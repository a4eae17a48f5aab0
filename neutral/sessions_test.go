package neutral_test

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestDiscovery(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		r := ts.Get("/healthz")
		mustStatus(t, r, 200)
		if string(r.Body) != `{"status":"ok"}` {
			t.Fatalf("healthz body %s", r.Body)
		}
		card := ts.Get("/.well-known/agent-card.json")
		mustStatus(t, card, 200)
		if card.JSON(t)["name"] != "Hello" {
			t.Fatalf("card %s", card.Body)
		}
		agent := ts.Get("/agent").JSON(t)
		if agent["id"] != "hello" || agent["card"].(map[string]any)["name"] != "Hello" {
			t.Fatalf("agent %v", agent)
		}
		eps := agent["endpoints"].(map[string]any)
		for _, k := range []string{"responses", "responseStatus", "responseEvents", "responseCancel", "responseSteer", "sessionEvents", "approvals", "clientTools", "assets", "asset", "agui", "sessions", "sessionMessages", "sessionResponses", "openapi", "openapiYaml", "docs"} {
			if eps[k] == nil {
				t.Errorf("endpoint %s missing from /Agent: %v", k, eps)
			}
		}
		for _, k := range []string{"live"} {
			if eps[k] != nil {
				t.Errorf("endpoint %s advertised but not served", k)
			}
		}
		if len(agent["resources"].([]any)) != 2 {
			t.Fatalf("resources %v", agent["resources"])
		}
	})
}

func TestOpenAPIDisabledRemovesRoutes(t *testing.T) {
	off := false
	eachStore(t, setup{Config: func(c *configT) { c.Server.OpenAPI = &off }}, func(t *testing.T, ts *testServer) {
		for _, p := range []string{"/openapi.json", "/openapi.yaml", "/docs"} {
			if r := ts.Get(p); r.Status != 404 {
				t.Errorf("%s: status %d with openapi off", p, r.Status)
			}
		}
		agent := ts.Get("/agent").JSON(t)
		eps := agent["endpoints"].(map[string]any)
		if eps["openapi"] != nil || eps["docs"] != nil || len(agent["resources"].([]any)) != 0 {
			t.Fatalf("/agent still advertises the docs: %v", agent)
		}
	})
}

func TestOpenAPIServed(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		doc := ts.Get("/openapi.json")
		mustStatus(t, doc, 200)
		if !strings.Contains(string(doc.Body), `"createAgentResponse"`) {
			t.Fatal("createAgentResponse missing")
		}
		mustStatus(t, ts.Get("/openapi.yaml"), 200)
		mustStatus(t, ts.Get("/docs"), 200)
	})
}

func TestCreateAndReadSession(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		r := ts.Post("/sessions", `{"id":"trip","state":{"city":"Oslo","n":[1,2]}}`)
		mustStatus(t, r, 201)
		s := r.JSON(t)
		if s["id"] != "trip" || s["userId"] != "_harnest_neutral" || s["state"].(map[string]any)["city"] != "Oslo" {
			t.Fatalf("session %s", r.Body)
		}
		for _, k := range []string{"applicationData", "metadata", "createdAt", "updatedAt"} {
			if _, ok := s[k]; !ok {
				t.Errorf("session lacks %s", k)
			}
		}
		mustStatus(t, ts.Post("/sessions", `{"id":"trip"}`), 409)
		got := ts.Get("/sessions/trip")
		mustStatus(t, got, 200)
		// GET is the created session, with its status after it.
		idle := strings.TrimSuffix(string(r.Body), "}") + `,"status":"idle","activeResponseId":null,"waitingOn":null,"queued":0}`
		if string(got.Body) != idle {
			t.Fatalf("GET differs from create with its status:\n%s\n%s", got.Body, idle)
		}
		fresh := ts.Post("/sessions", `{}`)
		mustStatus(t, fresh, 201)
		if id := fresh.JSON(t)["id"].(string); len(id) != 32 {
			t.Fatalf("generated id %q", id)
		}
		mustStatus(t, ts.Get("/sessions/nope"), 404)
	})
}

func TestSessionRequestErrors(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		for _, body := range []string{`{"id":""}`, `{"id":5}`, `{"state":[]}`, `{"state":"x"}`, `{"other":1}`, `[]`, `{`, `"x"`} {
			mustStatus(t, ts.Post("/sessions", body), 400)
		}
		mustStatus(t, ts.Do("POST", "/sessions", "text/plain", []byte(`{}`)), 415)
		mustStatus(t, ts.Do("POST", "/sessions", "", []byte(`{}`)), 415)
		mustStatus(t, ts.Do("POST", "/sessions", "application/json; charset=utf-8", []byte(`{}`)), 201)
		big := `{"state":{"x":"` + strings.Repeat("a", 1<<20) + `"}}`
		r := ts.Post("/sessions", big)
		mustStatus(t, r, 413)
		if !strings.Contains(string(r.Body), "1MiB") {
			t.Fatalf("413 body %s", r.Body)
		}
		list := ts.Get("/sessions").JSON(t)
		if n := len(list["sessions"].([]any)); n != 1 {
			t.Fatalf("bad requests created sessions: %d", n)
		}
	})
}

func TestPatchSession(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"s","state":{"a":{"x":1},"b":2}}`), 201)
		r := ts.Do("PATCH", "/sessions/s", "application/json", []byte(`{"stateDelta":{"a":{"y":2},"c":"new"}}`))
		mustStatus(t, r, 200)
		state := r.JSON(t)["state"].(map[string]any)
		if fmt.Sprint(state) != "map[a:map[y:2] b:2 c:new]" {
			t.Fatalf("shallow merge gave %v", state)
		}
		for _, body := range []string{`{}`, `{"stateDelta":[]}`, `{"stateDelta":{},"x":1}`, `{"state":{}}`} {
			mustStatus(t, ts.Do("PATCH", "/sessions/s", "application/json", []byte(body)), 400)
		}
		mustStatus(t, ts.Do("PATCH", "/sessions/none", "application/json", []byte(`{"stateDelta":{}}`)), 404)
		if s := ts.Get("/sessions/s").JSON(t)["state"].(map[string]any); len(s) != 3 {
			t.Fatalf("rejected patches changed state: %v", s)
		}
	})
}

func TestDeleteSession(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"gone"}`), 201)
		r := ts.Do("DELETE", "/sessions/gone", "", nil)
		if r.Status != 204 || len(r.Body) != 0 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		mustStatus(t, ts.Get("/sessions/gone"), 404)
		mustStatus(t, ts.Do("DELETE", "/sessions/gone", "", nil), 404)
	})
}

func TestListSessionsPagination(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		for i := 0; i < 7; i++ {
			mustStatus(t, ts.Post("/sessions", fmt.Sprintf(`{"id":"s%d"}`, i)), 201)
		}
		var ids []string
		cursor := ""
		for pages := 0; pages < 10; pages++ {
			path := "/sessions?limit=3"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			page := ts.Get(path).JSON(t)
			for _, s := range page["sessions"].([]any) {
				ids = append(ids, s.(map[string]any)["id"].(string))
			}
			next, ok := page["nextCursor"].(string)
			if !ok {
				if page["nextCursor"] != nil {
					t.Fatalf("nextCursor %v", page["nextCursor"])
				}
				break
			}
			cursor = next
		}
		if strings.Join(ids, ",") != "s0,s1,s2,s3,s4,s5,s6" {
			t.Fatalf("pages gave %v", ids)
		}
		// Exactly a full last page: nextCursor is null, not a cursor to an empty page.
		last := ts.Get("/sessions?limit=7").JSON(t)
		if last["nextCursor"] != nil {
			t.Fatalf("full page has nextCursor %v", last["nextCursor"])
		}
		for _, q := range []string{"limit=0", "limit=101", "limit=x", "limit=", "cursor=garbage", "cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{"version":1,"kind":"sessions","afterSessionId":"s1","userId":"someone-else"}`))} {
			mustStatus(t, ts.Get("/sessions?"+q), 400)
		}
		if n := len(ts.Get("/sessions?limit=100").JSON(t)["sessions"].([]any)); n != 7 {
			t.Fatalf("limit=100 listed %d", n)
		}
	})
}
