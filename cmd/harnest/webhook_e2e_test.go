package main

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// TestWebhookWhenTheResponseHolderIsKilled: background responses with
// webhooks run on a replica that is killed (SIGKILL) mid-run. The
// replica whose sweeper fails them sends each webhook's final delivery:
// the failed replica_lost receipt, signed with the caller's key, as the
// receipt reads on the survivor.
func TestWebhookWhenTheResponseHolderIsKilled(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	rc := testutil.NewReceiver(t)
	store := prefixed(t) + "  leaseSeconds: 2\nserver:\n  outbound:\n    allowHosts: [\"" + rc.Host() + "\"]\n"
	a := startHarnest(t, agentFolder(t, "delayMs: 20000", store), nil, "--redis-url", url)
	b := startHarnest(t, agentFolder(t, "", store), nil, "--redis-url", url)

	const n = 10
	type started struct{ id, session string }
	var runs []started
	for i := range n {
		body := fmt.Sprintf(`{"input":"a long job %d","background":true,"webhook":{"url":"%s"}}`, i, rc.URL("/hook"))
		r := a.post(t, "/responses", body)
		mustStatus(t, r, http.StatusOK)
		env := r.JSON(t)
		id, _ := env["id"].(string)
		session, _ := env["sessionId"].(string)
		if id == "" || session == "" || env["status"] != "in_progress" {
			t.Fatalf("start %d: %s", i, r.Body)
		}
		runs = append(runs, started{id, session})
	}
	a.kill(t)
	t.Cleanup(func() {
		if t.Failed() {
			for i, r := range rc.Requests() {
				t.Logf("webhook %d: %d %s", i, r.Status, r.Body)
			}
		}
	})

	finals := func(got []testutil.Request) map[string]testutil.Request {
		out := map[string]testutil.Request{}
		for _, g := range got {
			if g.Status == http.StatusOK && strings.Contains(g.Body, `"replica_lost"`) {
				out[g.Header.Get("Harnest-Response-Id")] = g
			}
		}
		return out
	}
	got := finals(rc.Wait(t, "every response's failed receipt", func(got []testutil.Request) bool {
		return len(finals(got)) >= n
	}))
	keyReply := b.get(t, "/webhook-key")
	mustStatus(t, keyReply, http.StatusOK)
	key, err := hex.DecodeString(keyReply.JSON(t)["key"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		g, ok := got[run.id]
		if !ok {
			t.Errorf("no final webhook for %s", run.id)
			continue
		}
		if !testutil.VerifyWebhookSignature(key, g) {
			t.Errorf("%s: the final webhook's signature does not verify with /webhook-key", run.id)
		}
		receipt := b.get(t, "/responses/"+run.id+"?sessionId="+run.session)
		mustStatus(t, receipt, http.StatusOK)
		if g.Body != string(receipt.Body) {
			t.Errorf("%s: the final webhook is not the receipt:\n%s\n%s", run.id, g.Body, receipt.Body)
		}
	}
	b.mustStop(t)
}
