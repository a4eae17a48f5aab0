package backend_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/internal/testutil/fakemodel"
	"github.com/harnest/harnest/server/servertest"
)

// Steering a model turn from the replica that does not run it: the steer
// reaches the turn's next model call as a user message after the answer
// so far, the stream says response.steered between the two answers, and
// the transcript keeps the steer where it was taken.
func TestModelSteerFromTheOtherReplica(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			fake := fakemodel.Start(t)
			steered := make(chan struct{})
			var calls sync.Mutex
			n := 0
			fake.SetDefault(func(req fakemodel.Request) fakemodel.Reply {
				calls.Lock()
				n++
				first := n == 1
				calls.Unlock()
				if first { // the first call answers once the steer was accepted, a second later (the steer reaches the other replica meanwhile)
					select {
					case <-steered:
					case <-time.After(10 * time.Second):
					}
					return fakemodel.Reply{Text: "Roses are red.", FirstByteDelay: time.Second, ChunkDelay: 50 * time.Millisecond}
				}
				return fakemodel.Reply{Text: "Violets are blue."}
			})
			rs := servertest.Replicas(t, c.URL, 2, servertest.Setup{Folder: "testdata/model", Config: func(cfg *config.Config) {
				cfg.Spec.Backend.Model.BaseURL = fake.URL
			}})
			a, b := rs[0], rs[1]
			start := a.Post("/responses", `{"input":"Write a poem","background":true}`)
			servertest.MustStatus(t, start, 200)
			env := start.JSON(t)
			id, session := env["id"].(string), env["sessionId"].(string)
			waitFor(t, "the first model call", func() bool { return len(fake.Requests()) >= 1 })
			r := b.Post("/responses/"+id+"/steer?sessionId="+session, `{"input":"Make it rhyme"}`)
			servertest.MustStatus(t, r, 202)
			ack := r.JSON(t)
			close(steered)
			if ack["status"] != "accepted" || ack["responseId"] != id || !strings.HasPrefix(fmt.Sprint(ack["id"]), "steer_") {
				t.Fatalf("steer answer = %s", r.Body)
			}
			final := waitReceipt(t, b, id, session)
			if final["status"] != "completed" || final["outputText"] != "Roses are red.Violets are blue." {
				t.Fatalf("receipt = %v", final)
			}
			reqs := fake.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			msgs := reqs[1].Messages
			last, before := msgs[len(msgs)-1], msgs[len(msgs)-2]
			if last.Role != "user" || last.Text() != "Make it rhyme" || before.Role != "assistant" || before.Text() != "Roses are red." {
				t.Errorf("second call's messages end with %s %q, %s %q", before.Role, before.Text(), last.Role, last.Text())
			}
			// The log: response.steered after the first answer's text, before the second's.
			frames := testutil.ReadSSE(bytes.NewReader(b.Get("/responses/" + id + "/events?sessionId=" + session).Body))
			var kinds []string
			for _, f := range frames {
				switch f.Event {
				case "response.steered":
					st, _ := f.Data["steer"].(map[string]any)
					if st["id"] != ack["id"] || st["input"] != "Make it rhyme" {
						t.Errorf("response.steered = %v", f.Data)
					}
					kinds = append(kinds, "steered")
				case "response.text.delta":
					if len(kinds) == 0 || kinds[len(kinds)-1] != "text" {
						kinds = append(kinds, "text")
					}
				}
			}
			if strings.Join(kinds, ",") != "text,steered,text" {
				t.Errorf("stream = %v, want text, steered, text", kinds)
			}
			got := transcript(t, a, session)
			want := []string{"user: Write a poem", "assistant: Roses are red.", "user: Make it rhyme", "assistant: Violets are blue."}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("transcript = %q, want %q", got, want)
			}
		})
	}
}

// A steer for a response that is over, or for an agent that cannot take
// one, is refused with its own code; nothing is kept.
func TestModelSteerRefusedWhenFinal(t *testing.T) {
	eachModelServer(t, nil, func(t *testing.T, ts *servertest.Server, fake *fakemodel.Server) {
		r := ts.Post("/responses", `{"input":"hi"}`)
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		steer := ts.Post("/responses/"+env["id"].(string)+"/steer?sessionId="+env["sessionId"].(string), `{"input":"more"}`)
		servertest.MustStatus(t, steer, 409)
		if steer.JSON(t)["code"] != "response_final" {
			t.Errorf("steer of a final response = %s", steer.Body)
		}
		bad := ts.Post("/responses/"+env["id"].(string)+"/steer?sessionId="+env["sessionId"].(string), `{"input":"  "}`)
		servertest.MustStatus(t, bad, 400)
		if got := transcript(t, ts, env["sessionId"].(string)); len(got) != 2 {
			t.Errorf("transcript after refused steers = %q", got)
		}
	})
}

// waitFor waits, bounded, until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i == 500 {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitReceipt polls a response's receipt until it is final.
func waitReceipt(t *testing.T, ts *servertest.Server, id, session string) map[string]any {
	t.Helper()
	var env map[string]any
	waitFor(t, "final receipt", func() bool {
		r := ts.Get("/responses/" + id + "?sessionId=" + session)
		env = r.JSON(t)
		s := env["status"]
		return s != "in_progress" && s != "requires_action" && s != "queued"
	})
	return env
}

// transcript is the session's messages as "role: text".
func transcript(t *testing.T, ts *servertest.Server, session string) []string {
	t.Helper()
	r := ts.Get("/sessions/" + session + "/messages?limit=100")
	servertest.MustStatus(t, r, 200)
	var page struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &page); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range page.Messages {
		var text string
		_ = json.Unmarshal(m.Content, &text)
		out = append(out, m.Role+": "+text)
	}
	return out
}
