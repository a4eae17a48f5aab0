package trigger_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harnest/harnest/server/servertest"
)

// delivery is one request to a trigger.
type delivery struct {
	path    string
	body    string
	headers []string
}

// forgedBody is the payload every forged delivery carries: whatever
// reaches the log must not show it.
const forgedBody = `{"text":"transfer the funds","ticket":"forged-canary"}`

// standardForged builds a Standard Webhooks delivery from the genuine
// parts; change edits them before it is sent.
func standardForged(t *testing.T, change func(id, stamp, body, sig *string)) delivery {
	id, stamp, body := "msg_forged", now(), forgedBody
	sig := standardSignature(t, standardSecret, id, stamp, []byte(body))
	change(&id, &stamp, &body, &sig)
	var h []string
	for _, kv := range [][2]string{{"webhook-id", id}, {"webhook-timestamp", stamp}, {"webhook-signature", sig}} {
		if kv[1] != "-" {
			h = append(h, kv[0], kv[1])
		}
	}
	return delivery{path: "/triggers/hooks", body: body, headers: h}
}

// githubForged builds a GitHub delivery the same way; headers of value
// "-" are left out.
func githubForged(change func(id, body, sig *string) []string) delivery {
	id, body := "gh-forged", `{"issue":{"title":"forged-canary"}}`
	sig := githubSignature(githubSecret, []byte(body))
	extra := change(&id, &body, &sig)
	var h []string
	for _, kv := range [][2]string{{"X-GitHub-Delivery", id}, {"X-Hub-Signature-256", sig}} {
		if kv[1] != "-" {
			h = append(h, kv[0], kv[1])
		}
	}
	return delivery{path: "/triggers/gh", body: body, headers: append(h, extra...)}
}

func stampAt(d time.Duration) string { return strconv.FormatInt(time.Now().Add(d).Unix(), 10) }

// TestForgedDeliveriesChangeNothing: every forged, stale or replayed
// delivery is refused (401, or 409 for a replay) and changes nothing:
// alice has the same sessions and responses as before, and the delivery
// IDs the forgeries used are not remembered (genuine deliveries with them
// are accepted afterwards). The log names each refusal without the
// payload.
func TestForgedDeliveriesChangeNothing(t *testing.T) {
	cases := []struct {
		name   string
		forged func(t *testing.T) delivery
		status int
		// prime sends the genuine delivery first (a replay).
		prime func(t *testing.T, ts *servertest.Server)
	}{
		{"wrong secret", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) {
				*sig = standardSignature(t, otherSecret, *id, *stamp, []byte(*body))
			})
		}, 401, nil},
		{"tampered body", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *body = strings.Replace(*body, "funds", "FUNDS", 1) })
		}, 401, nil},
		{"tampered id", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *id = "msg_other" })
		}, 401, nil},
		{"stale timestamp", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) {
				*stamp = stampAt(-10 * time.Minute)
				*sig = standardSignature(t, standardSecret, *id, *stamp, []byte(*body))
			})
		}, 401, nil},
		{"future timestamp", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) {
				*stamp = stampAt(10 * time.Minute)
				*sig = standardSignature(t, standardSecret, *id, *stamp, []byte(*body))
			})
		}, 401, nil},
		{"timestamp moved after signing", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *stamp = stampAt(time.Minute) })
		}, 401, nil},
		{"malformed timestamp", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) {
				*stamp = "yesterday"
				*sig = standardSignature(t, standardSecret, *id, *stamp, []byte(*body))
			})
		}, 401, nil},
		{"missing webhook-signature", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *sig = "-" })
		}, 401, nil},
		{"missing webhook-id", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *id = "-" })
		}, 401, nil},
		{"missing webhook-timestamp", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *stamp = "-" })
		}, 401, nil},
		{"wrong scheme prefix", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *sig = "v2" + strings.TrimPrefix(*sig, "v1") })
		}, 401, nil},
		{"empty signature", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *sig = "v1," })
		}, 401, nil},
		{"malformed signature header", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *sig = strings.TrimPrefix(*sig, "v1,") })
		}, 401, nil},
		{"signature not base64", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) { *sig = "v1,!!!not-base64!!!" })
		}, 401, nil},
		{"several signatures, none valid", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) {
				*sig = standardSignature(t, otherSecret, *id, *stamp, []byte(*body)) + " v1,AAAA v1a," + strings.TrimPrefix(*sig, "v1,")
			})
		}, 401, nil},
		{"GitHub headers to a Standard Webhooks trigger", func(t *testing.T) delivery {
			return delivery{path: "/triggers/hooks", body: forgedBody, headers: []string{"X-GitHub-Delivery", "msg_forged", "X-Hub-Signature-256", githubSignature(githubSecret, []byte(forgedBody))}}
		}, 401, nil},
		{"GitHub sha1 header only", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string {
				*sig = "-"
				return []string{"X-Hub-Signature", "sha1=0123456789abcdef0123456789abcdef01234567"}
			})
		}, 401, nil},
		{"GitHub wrong secret", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string { *sig = githubSignature("guessed", []byte(*body)); return nil })
		}, 401, nil},
		{"GitHub tampered body", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string { *body += " "; return nil })
		}, 401, nil},
		{"GitHub sha1 prefix in the sha256 header", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string { *sig = "sha1=" + strings.TrimPrefix(*sig, "sha256="); return nil })
		}, 401, nil},
		{"GitHub signature not hex", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string { *sig = "sha256=zz"; return nil })
		}, 401, nil},
		{"GitHub missing delivery ID", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string { *id = "-"; return nil })
		}, 401, nil},
		{"Standard Webhooks headers to a GitHub trigger", func(t *testing.T) delivery {
			d := standardForged(t, func(id, stamp, body, sig *string) {})
			d.path = "/triggers/gh"
			return d
		}, 401, nil},
		{"replayed webhook-id", func(t *testing.T) delivery {
			d := standardForged(t, func(id, stamp, body, sig *string) {
				*id, *body = "msg_replayed", `{"text":"once","ticket":"replay"}`
				*sig = standardSignature(t, standardSecret, *id, *stamp, []byte(*body))
			})
			return d
		}, 409, func(t *testing.T, ts *servertest.Server) {
			rid, sid := accepted(t, sendStandard(t, ts, "msg_replayed", `{"text":"once","ticket":"replay"}`), "started")
			receiptUntil(t, ts, sid, rid, "completed")
		}},
		{"replayed webhook-id with a fresh timestamp and another body", func(t *testing.T) delivery {
			return standardForged(t, func(id, stamp, body, sig *string) {
				*id, *stamp = "msg_replayed", stampAt(time.Second)
				*sig = standardSignature(t, standardSecret, *id, *stamp, []byte(*body))
			})
		}, 409, nil},
		{"replayed GitHub delivery", func(t *testing.T) delivery {
			return githubForged(func(id, body, sig *string) []string {
				*id, *body = "gh-replayed", `{"issue":{"title":"once"}}`
				*sig = githubSignature(githubSecret, []byte(*body))
				return nil
			})
		}, 409, func(t *testing.T, ts *servertest.Server) {
			rid, sid := accepted(t, sendGitHub(t, ts, "gh-replayed", `{"issue":{"title":"once"}}`), "started")
			receiptUntil(t, ts, sid, rid, "completed")
		}},
		{"unknown trigger", func(t *testing.T) delivery {
			d := standardForged(t, func(id, stamp, body, sig *string) {})
			d.path = "/triggers/nope"
			return d
		}, 404, nil},
	}
	var logs logBuffer
	servertest.EachStore(t, servertest.Setup{Config: triggers, Logger: logs.logger()}, func(t *testing.T, ts *servertest.Server) {
		for _, c := range cases {
			if c.prime != nil {
				c.prime(t, ts)
			}
			before := snapshot(t, ts)
			d := c.forged(t)
			r := ts.Do("POST", d.path, "application/json", []byte(d.body), d.headers...)
			if r.Status != c.status {
				t.Fatalf("%s: status %d, want %d: %s", c.name, r.Status, c.status, r.Body)
			}
			servertest.MustStatus(t, r, c.status)
			if after := snapshot(t, ts); after != before {
				t.Fatalf("%s changed alice's sessions or responses:\nbefore %s\nafter  %s", c.name, before, after)
			}
		}
		// No forgery consumed the delivery IDs it carried.
		accepted(t, sendStandard(t, ts, "msg_forged", `{"text":"genuine","ticket":"1"}`), "started")
		accepted(t, sendGitHub(t, ts, "gh-forged", `{"issue":{"title":"genuine"}}`), "started")
	})
	text := logs.String()
	if strings.Contains(text, "forged-canary") || strings.Contains(text, "transfer the funds") {
		t.Fatalf("the log shows a refused payload:\n%s", text)
	}
	for _, want := range []string{"refused a delivery", "trigger=hooks", "trigger=gh", "stale or from the future", "refused a replayed delivery", "X-Hub-Signature (SHA-1)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log does not say %q:\n%s", want, text)
		}
	}
}
