package neutral_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestSessionResponsesPaged: 25 responses of a session list newest first
// in pages of 10 (10, 10, 5) with opaque cursors, each item its receipt's
// summary, each page as the OpenAPI document says.
func TestSessionResponsesPaged(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		mustStatus(t, ts.Post("/sessions", `{"id":"many"}`), 201)
		var ids []string
		for i := 0; i < 25; i++ {
			r := ts.Post("/responses", fmt.Sprintf(`{"input":"m%d","sessionId":"many"}`, i))
			mustStatus(t, r, 200)
			ids = append(ids, r.JSON(t)["id"].(string))
		}
		doc, err := openapi3.NewLoader().LoadFromData(ts.Get("/openapi.json").Body)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		var sizes []int
		path := "/sessions/many/responses?limit=10"
		for pages := 0; pages < 5; pages++ {
			r := ts.Get(path)
			mustStatus(t, r, 200)
			page := r.JSON(t)
			if err := doc.Components.Schemas["SessionResponsePage"].Value.VisitJSON(page); err != nil {
				t.Fatalf("page does not match SessionResponsePage: %v\n%s", err, r.Body)
			}
			items := page["responses"].([]any)
			sizes = append(sizes, len(items))
			for _, it := range items {
				item := it.(map[string]any)
				if item["status"] != "completed" || item["error"] != nil {
					t.Fatalf("item %v", item)
				}
				got = append(got, item["id"].(string))
			}
			next, ok := page["nextCursor"].(string)
			if !ok {
				break
			}
			path = "/sessions/many/responses?limit=10&cursor=" + url.QueryEscape(next)
		}
		if fmt.Sprint(sizes) != "[10 10 5]" {
			t.Fatalf("page sizes %v, want [10 10 5]", sizes)
		}
		for i, id := range got {
			if id != ids[len(ids)-1-i] {
				t.Fatalf("response %d is %s, want %s (newest first): %v", i, id, ids[len(ids)-1-i], got)
			}
		}
	})
}

// TestSessionResponsesRefusals: a bad cursor (malformed, or another
// session's) or limit is a 400 naming the field; another user's session,
// or a missing one, is a 404.
func TestSessionResponsesRefusals(t *testing.T) {
	eachStore(t, setup{Config: withTokens}, func(t *testing.T, ts *testServer) {
		alice, bob := ts.as("token-alice-0123456789"), ts.as("token-bob-0123456789")
		var sid string
		for i := 0; i < 3; i++ {
			body := `{"input":"x"}`
			if sid != "" {
				body = `{"input":"x","sessionId":"` + sid + `"}`
			}
			r := alice.Post("/responses", body)
			mustStatus(t, r, 200)
			sid = r.JSON(t)["sessionId"].(string)
		}
		first := alice.Get("/sessions/" + sid + "/responses?limit=1")
		mustStatus(t, first, 200)
		cursor := first.JSON(t)["nextCursor"].(string)

		mustStatus(t, bob.Get("/sessions/"+sid+"/responses"), 404)
		mustStatus(t, bob.Get("/sessions/"+sid+"/responses?cursor="+url.QueryEscape(cursor)), 404)
		mustStatus(t, alice.Get("/sessions/nope/responses"), 404)
		mustStatus(t, alice.Post("/sessions", `{"id":"other"}`), 201)
		for _, q := range []string{"cursor=garbage", "cursor=" + url.QueryEscape(cursor[:len(cursor)-2]) + "xx"} {
			r := alice.Get("/sessions/" + sid + "/responses?" + q)
			mustStatus(t, r, 400)
			if !strings.Contains(string(r.Body), "cursor") {
				t.Fatalf("%s: %s does not name the cursor", q, r.Body)
			}
		}
		if r := alice.Get("/sessions/other/responses?cursor=" + url.QueryEscape(cursor)); r.Status != 400 {
			t.Fatalf("another session's cursor: %d %s", r.Status, r.Body)
		}
		if r := alice.Get("/sessions/" + sid + "/responses?limit=0"); r.Status != 400 || !strings.Contains(string(r.Body), "limit") {
			t.Fatalf("limit=0: %d %s", r.Status, r.Body)
		}
		next := alice.Get("/sessions/" + sid + "/responses?limit=5&cursor=" + url.QueryEscape(cursor)).JSON(t)
		if len(next["responses"].([]any)) != 2 || next["nextCursor"] != nil {
			t.Fatalf("second page %v", next)
		}
	})
}
