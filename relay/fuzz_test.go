package relay

import (
	"encoding/json"
	"net/http"
	"testing"
	"unicode/utf8"

	"github.com/harnest/harnest/relay/text"
)

// checkBodyError holds every decoder to its contract: an error is a 400 or
// 422 with a sentence and a code.
func checkBodyError(t *testing.T, err *bodyError) {
	t.Helper()
	if err == nil {
		return
	}
	if err.status != http.StatusBadRequest && err.status != http.StatusUnprocessableEntity || err.code == "" || err.detail == "" {
		t.Fatalf("bad error %+v", err)
	}
}

func FuzzDecodeExchange(f *testing.F) {
	f.Add([]byte(`{"code":"K7QM-X2PA-9RTW","card":{"name":"My CLI","kind":"cli","description":"Local assistant","skills":[{"id":"summarize","name":"Summarize"}]}}`))
	f.Add([]byte(`{"code":"","card":{}}`))
	f.Add([]byte(`{"code":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeExchange(body)
		checkBodyError(t, err)
		if err == nil && (req.Code == "" || checkName(req.Name, req.Kind, "x") != nil) {
			t.Fatalf("accepted %+v", req)
		}
	})
}

func FuzzDecodeReply(f *testing.F) {
	f.Add([]byte(`{"relay_id":"0b5b0b0e-1111-4222-8333-444455556666","text":"Your answer"}`))
	f.Add([]byte(`{"relay_id":"x","text":"   "}`))
	f.Add([]byte(`{"relay_id":"x","text":"a","more":true}`))
	f.Add([]byte(`{"relay_id":"x","text":"\u0000"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodeReply(body)
		checkBodyError(t, err)
		if err == nil && (req.RelayID == "" || utf8.RuneCountInString(req.Text) > MaxReplyChars || !utf8.ValidString(req.Text)) {
			t.Fatalf("accepted %+v", req)
		}
	})
}

func FuzzDecodeNotice(f *testing.F) {
	for _, s := range []string{
		`{"text":"The tests passed and the branch is pushed."}`,
		`{"item":{"type":"say","text":"Two pages done."}}`,
		`{"item":{"type":"progress","step":2,"total":3,"label":"Pages done"}}`,
		`{"item":{"type":"card","title":"Preview ready","lines":["Three pages built","Checks passed"],"link":"/dashboard/agents/21"}}`,
		`{"item":{"type":"gesture","name":"wave"}}`,
		`{"item":{"type":"ask","text":"Which page should I work on next?"}}`,
		`{"item":{"type":"card","title":"x","link":"https://evil.example"}}`,
		`{"text":"<b>x</b>"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n, err := decodeNotice(body)
		checkBodyError(t, err)
		if err != nil {
			return
		}
		if n.Item == nil {
			if text.HasMarkup(n.Text) || utf8.RuneCountInString(n.Text) > MaxNoticeChars {
				t.Fatalf("accepted notice %q", n.Text)
			}
			return
		}
		// An accepted item is normalised and decodes again to itself.
		again, err2 := decodeNotice([]byte(`{"item":` + string(n.Item) + `}`))
		if err2 != nil || string(again.Item) != string(n.Item) {
			t.Fatalf("item %s does not round-trip: %v", n.Item, err2)
		}
		var m map[string]any
		if json.Unmarshal(n.Item, &m) != nil {
			t.Fatalf("item %s", n.Item)
		}
		if link, ok := m["link"].(string); ok && !localLink(link) {
			t.Fatalf("outside link %q", link)
		}
	})
}

func FuzzDecodePairing(f *testing.F) {
	f.Add([]byte(`{"name":"My CLI","kind":"cli"}`))
	f.Add([]byte(`{"name":"","kind":"CLI"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := decodePairing(body)
		checkBodyError(t, err)
		if err == nil && checkName(req.Name, req.Kind, "x") != nil {
			t.Fatalf("accepted %+v", req)
		}
	})
}

func FuzzParseWait(f *testing.F) {
	for _, s := range []string{"", "0", "20", "21", "-1", "NaN", "1e309", "2.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if w := parseWait(s, MaxWait); w < 0 || w > MaxWait {
			t.Fatalf("wait %q → %v", s, w)
		}
	})
}
