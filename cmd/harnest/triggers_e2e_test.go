package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Signed inbound triggers (#35) on real processes: the secret comes from
// the environment; a delivery on replica A starts a turn that waits for an
// approval; A is SIGKILLed; the outside event that answers it reaches
// replica B days later (here: at once), and the turn completes there.

const e2eHookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

const e2eTriggers = `server:
  triggers:
    ops:
      secretEnv: E2E_TRIGGER_SECRET
      input: "{/text}"
      session: "ticket-{/ticket}"
      answer: {waitId: /approvalId, approved: /approved}
`

// deliver posts a Standard Webhooks delivery signed with e2eHookSecret.
func deliver(t *testing.T, h *harnest, id, body string) reply {
	t.Helper()
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(e2eHookSecret, "whsec_"))
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + stamp + "." + body))
	sig := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return h.do(t, "POST", "/triggers/ops", body, "Content-Type", "application/json",
		"webhook-id", id, "webhook-timestamp", stamp, "webhook-signature", sig)
}

func TestTriggerAnswerOutlivesItsReplica(t *testing.T) {
	t.Parallel()
	url := realRedis(t)
	dir := rerunFolder(t, "approval: send", prefixed(t)+e2eTriggers)
	env := []string{"E2E_TRIGGER_SECRET=" + e2eHookSecret}
	a := startHarnest(t, dir, env, "--redis-url", url)
	b := startHarnest(t, dir, env, "--redis-url", url)

	started := deliver(t, a, "msg_e2e_start", `{"text":"deploy the fix","ticket":"e2e"}`)
	mustStatus(t, started, http.StatusAccepted)
	v := started.JSON(t)
	ids := map[string]any{"id": v["responseId"], "sessionId": v["sessionId"]}
	if ids["sessionId"] != "ticket-e2e" {
		t.Fatalf("started %s", started.Body)
	}
	var approval string
	for deadline := time.Now().Add(15 * time.Second); approval == ""; time.Sleep(25 * time.Millisecond) {
		r := a.get(t, receiptPath(ids)).JSON(t)
		if action, ok := r["requiredAction"].(map[string]any); ok && r["status"] == "requires_action" {
			approval = action["id"].(string)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the turn never waited for its approval: %v", r)
		}
	}
	a.kill(t)

	answered := deliver(t, b, "msg_e2e_answer", `{"approvalId":"`+approval+`","approved":true}`)
	mustStatus(t, answered, http.StatusAccepted)
	if got := answered.JSON(t); got["action"] != "answered" || got["responseId"] != ids["id"] {
		t.Fatalf("answered %s", answered.Body)
	}
	_, done := b.waitReceipt(t, ids, 20*time.Second)
	if done["status"] != "completed" || done["outputText"] != "Echo: deploy the fix" {
		t.Fatalf("final receipt %v", done)
	}
	// The same delivery again is a replay; a forged one is refused; the
	// log never shows the payload of either.
	mustStatus(t, deliver(t, b, "msg_e2e_answer", `{"approvalId":"`+approval+`","approved":true}`), http.StatusConflict)
	forged := b.do(t, "POST", "/triggers/ops", `{"text":"forged-canary","ticket":"x"}`, "Content-Type", "application/json",
		"webhook-id", "msg_forged", "webhook-timestamp", strconv.FormatInt(time.Now().Unix(), 10), "webhook-signature", "v1,AAAA")
	mustStatus(t, forged, http.StatusUnauthorized)
	waitLog(t, b, "refused a delivery", 5*time.Second)
	if strings.Contains(b.stderr.String()+b.stdout.String(), "forged-canary") {
		t.Fatal("the log shows a refused payload")
	}
	b.mustStop(t)
}
