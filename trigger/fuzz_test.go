package trigger

import (
	"net/http"
	"testing"
	"time"
)

// FuzzDelivery feeds outside input (headers and body) to the verifier and
// the payload mapping: neither panics, and a delivery is accepted only
// with its delivery ID.
func FuzzDelivery(f *testing.F) {
	f.Add("msg_1", "1700000000", "v1,abc", "sha256=00", "d-1", []byte(`{"text":"hi","ticket":1,"approvalId":"a","approved":true}`))
	f.Add("", "x", "v1, v1,=== v2,AAAA", "sha1=zz", "", []byte(`[1,2`))
	std, err := prepare(Definition{Name: "s", Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Input: "{/text}", Session: "t-{/ticket}",
		AnswerWaitID: "/approvalId", AnswerApproved: "/approved", AnswerOutput: "/output"})
	if err != nil {
		f.Fatal(err)
	}
	gh, err := prepare(Definition{Name: "g", Scheme: SchemeGitHub, Secret: "s", Input: "{/text}"})
	if err != nil {
		f.Fatal(err)
	}
	at := time.Unix(1700000000, 0)
	f.Fuzz(func(t *testing.T, id, stamp, sig, hub, delivery string, body []byte) {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", stamp)
		h.Set("webhook-signature", sig)
		h.Set("X-Hub-Signature-256", hub)
		h.Set("X-GitHub-Delivery", delivery)
		for _, tr := range []*trigger{std, gh} {
			got, why := tr.verify(h, body, at)
			if (why == "") == (got == "") {
				t.Fatalf("verify: id %q with refusal %q", got, why)
			}
			if _, err := tr.plan(body); err != nil && err.Error() == "" {
				t.Fatal("a refusal without a reason")
			}
		}
	})
}
