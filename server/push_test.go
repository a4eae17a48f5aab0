package server_test

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/server/servertest"
)

// TestWebhooks: a background response with a webhook posts its event
// batches and then its final receipt, byte for byte what GET /responses/{id}
// answers, signed with the caller's key (GET /webhook-key); a 500 is
// retried.
func TestWebhooks(t *testing.T) {
	rc := testutil.NewReceiver(t)
	servertest.EachStore(t, pushSetup(rc, 5*time.Second), func(t *testing.T, ts *servertest.Server) {
		rc.SetPlan(http.StatusInternalServerError)
		start := len(rc.Requests())
		r := ts.Post("/responses", `{"input":"hook me","background":true,"webhook":{"url":"`+rc.URL("/hook")+`","events":true}}`)
		servertest.MustStatus(t, r, 200)
		env := r.JSON(t)
		id, session := env["id"].(string), env["sessionId"].(string)
		got := rc.Wait(t, "the final receipt", func(got []testutil.Request) bool {
			for _, g := range got[start:] {
				if g.Status == 200 && strings.HasPrefix(g.Body, `{"id":`) {
					return true
				}
			}
			return false
		})[start:]
		receipt := ts.Get("/responses/" + id + "?sessionId=" + session)
		servertest.MustStatus(t, receipt, 200)
		keyReply := ts.Get("/webhook-key")
		servertest.MustStatus(t, keyReply, 200)
		key, err := hex.DecodeString(keyReply.JSON(t)["key"].(string))
		if err != nil {
			t.Fatal(err)
		}
		var batches, sequences []float64
		for i, g := range got {
			if !testutil.VerifyWebhookSignature(key, g) {
				t.Errorf("webhook %d: the signature does not verify with /webhook-key", i)
			}
			if g.Header.Get("Harnest-Response-Id") != id || g.Header.Get("Harnest-Delivery-Id") == "" {
				t.Errorf("webhook %d headers %v", i, g.Header)
			}
			if g.Status != 200 {
				continue
			}
			if i == len(got)-1 {
				if g.Body != string(receipt.Body) {
					t.Errorf("the last webhook is not the receipt:\n%s\n%s", g.Body, receipt.Body)
				}
				continue
			}
			var b struct {
				Type   string `json:"type"`
				Events []struct {
					Sequence float64 `json:"sequence"`
				} `json:"events"`
			}
			if err := json.Unmarshal([]byte(g.Body), &b); err != nil || b.Type != "response.events" {
				t.Fatalf("webhook %d is neither an event batch nor the receipt: %s", i, g.Body)
			}
			batches = append(batches, float64(len(b.Events)))
			for _, e := range b.Events {
				sequences = append(sequences, e.Sequence)
			}
		}
		if len(batches) == 0 {
			t.Fatal("no event batch arrived before the receipt")
		}
		for i, s := range sequences {
			if s != float64(i) {
				t.Fatalf("event sequences %v, want 0, 1, 2 ... in order", sequences)
			}
		}
		if len(got) < 2 || got[0].Status != http.StatusInternalServerError || got[0].Body != got[1].Body {
			t.Errorf("the delivery that got a 500 was not sent again first")
		}
	})
}

// TestWebhookRefusals: a webhook that cannot be delivered is a 400, and
// nothing runs.
func TestWebhookRefusals(t *testing.T) {
	rc := testutil.NewReceiver(t)
	ts := servertest.Start(t, "", pushSetup(rc, 5*time.Second))
	for _, body := range []string{
		`{"input":"x","background":true,"webhook":{"url":"http://10.0.0.1/hook"}}`,
		`{"input":"x","background":true,"webhook":{"url":"https://127.0.0.1:9/hook"}}`,
		`{"input":"x","background":true,"webhook":{"url":"not a url"}}`,
		`{"input":"x","background":true,"webhook":{}}`,
		`{"input":"x","background":true,"webhook":{"url":"` + rc.URL("/hook") + `","extra":1}}`,
		`{"input":"x","background":true,"webhook":"` + rc.URL("/hook") + `"}`,
		`{"input":"x","webhook":{"url":"` + rc.URL("/hook") + `"}}`,
	} {
		r := ts.Post("/responses", body)
		servertest.MustStatus(t, r, 400)
		if r.Header.Get("Harnest-Response-Id") != "" {
			t.Errorf("%s: a response started", body)
		}
	}
	if list := ts.Get("/sessions"); strings.Contains(string(list.Body), `"id"`) {
		t.Errorf("refused requests made sessions: %v", list)
	}
	if n := len(rc.Requests()); n != 0 {
		t.Errorf("the receiver got %d requests", n)
	}
}

// TestWebhookRefusesNumericHosts: a webhook URL whose host is an IPv4
// address written as a number in another form than the dotted quad
// (decimal, hex, octal, fewer parts), or an IPv6 literal carrying a
// loopback address, is a 400 naming webhook.url, as a loopback URL is,
// even with the receiver's own address listed: nothing runs, nothing is
// stored, nothing is sent.
func TestWebhookRefusesNumericHosts(t *testing.T) {
	rc := testutil.NewReceiver(t)
	_, port, _ := strings.Cut(rc.Host(), ":")
	ts := servertest.Start(t, "", pushSetup(rc, 5*time.Second))
	for _, host := range []string{
		"2130706433", "0x7f000001", "127.1", "0", "0177.0.0.1", "0x7f.0.0.1", "127.0.1", "127.0.0.01",
		"017700000001", "0x7f.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "134744072",
	} {
		for _, scheme := range []string{"https", "http"} {
			u := scheme + "://" + host + ":" + port + "/hook"
			r := ts.Post("/responses", `{"input":"x","background":true,"webhook":{"url":"`+u+`"}}`)
			servertest.MustStatus(t, r, 400)
			if detail, _ := r.JSON(t)["detail"].(string); !strings.Contains(detail, "webhook.url") {
				t.Errorf("%s: the refusal does not name webhook.url: %s", u, r.Body)
			}
			if r.Header.Get("Harnest-Response-Id") != "" {
				t.Errorf("%s: a response started", u)
			}
		}
	}
	if list := ts.Get("/sessions"); strings.Contains(string(list.Body), `"id"`) {
		t.Errorf("refused requests made sessions: %s", list.Body)
	}
	if n := len(rc.Requests()); n != 0 {
		t.Errorf("the receiver got %d requests", n)
	}
}

// TestPushAfterHolderDies: a task's push notifications are held by the
// replica that claimed them (its receiver never answers); once that
// replica is closed, the other replica delivers every update after the
// claim's lease, in order, signed with the key both serve.
func TestPushAfterHolderDies(t *testing.T) {
	for _, c := range testutil.Stores(t) {
		t.Run(c.Name, func(t *testing.T) {
			rc := testutil.NewReceiver(t, 0) // the first notification is held
			s := servertest.Shared(t, c.URL, pushSetup(rc, time.Second))
			a := servertest.Start(t, c.URL, s)
			send := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER",` +
				`"parts":[{"text":"push me"}]},"configuration":{"taskPushNotificationConfig":{"url":"` + rc.URL("/hook") + `","token":"tok-1"}}}}`
			r := a.Do("POST", "/a2a", "application/json", []byte(send), "A2A-Version", "1.0")
			servertest.MustStatus(t, r, 200)
			task, _ := r.JSON(t)["result"].(map[string]any)["task"].(map[string]any)
			if task == nil || task["status"].(map[string]any)["state"] != "TASK_STATE_COMPLETED" {
				t.Fatalf("send with a push config: %s", r.Body)
			}
			rc.Wait(t, "the first notification", func(got []testutil.Request) bool { return len(got) >= 1 })
			b := servertest.Start(t, c.URL, s)
			a.HTTP.Close()
			if err := a.Srv.Close(); err != nil {
				t.Logf("closing the holder: %v", err)
			}
			got := rc.Wait(t, "the terminal update", testutil.DeliveredWith("TASK_STATE_COMPLETED", "statusUpdate"))
			if !strings.Contains(got[0].Body, `"task"`) || got[1].Body != got[0].Body {
				t.Fatalf("the held notification (the task) was not sent again first: %q then %q", got[0].Body, got[1].Body)
			}
			for i, g := range got[1:] {
				if g.Header.Get("X-A2A-Notification-Token") != "tok-1" || g.Header.Get("A2A-Notification-Token") != "tok-1" ||
					g.Header.Get("Content-Type") != "application/a2a+json" {
					t.Errorf("notification %d headers %v", i+1, g.Header)
				}
				verifyPushJWT(t, b, g)
				var e map[string]any
				if err := json.Unmarshal([]byte(g.Body), &e); err != nil || len(e) != 1 {
					t.Errorf("notification %d is not one StreamResponse: %s", i+1, g.Body)
				}
			}
			if last := got[len(got)-1].Body; !strings.Contains(last, "statusUpdate") || !strings.Contains(last, "TASK_STATE_COMPLETED") {
				t.Errorf("the last notification is not the completed status: %s", last)
			}
		})
	}
}
