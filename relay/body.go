package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/relay/text"
)

// bodyError is a request body that breaks a rule: its status, code and a
// sentence.
type bodyError struct {
	status int
	code   string
	detail string
}

func (e *bodyError) Error() string { return e.detail }

func invalid(code, format string, args ...any) *bodyError {
	return &bodyError{status: http.StatusUnprocessableEntity, code: code, detail: fmt.Sprintf(format, args...)}
}

// readDecoded reads a bounded JSON body (readBody) and decodes it; ok is
// false when the refusal was written.
func readDecoded[T any](w http.ResponseWriter, req *http.Request, decode func(body []byte) (T, *bodyError)) (v T, ok bool) {
	body, berr := readBody(w, req)
	if berr == nil {
		if v, berr = decode(body); berr == nil {
			return v, true
		}
	}
	failBody(w, berr)
	return v, false
}

// readObject is readDecoded of a JSON object of these members only
// (object).
func readObject(w http.ResponseWriter, req *http.Request, code string, members ...string) (map[string]json.RawMessage, bool) {
	return readDecoded(w, req, func(body []byte) (map[string]json.RawMessage, *bodyError) { return object(body, code, members...) })
}

// readBody reads a JSON body: content type (415), size (413), UTF-8 JSON
// object (400).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *bodyError) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" {
		return nil, &bodyError{http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json."}
	}
	body, e := httpapi.ReadAtMost(w, r, maxBodyBytes)
	switch {
	case e == nil:
		return body, nil
	case e.Status == http.StatusRequestEntityTooLarge: // the relay's sentences end with a period
		return nil, &bodyError{e.Status, e.Code, "The request body exceeds 64 KiB."}
	}
	return nil, &bodyError{e.Status, e.Code, "The request body could not be read."}
}

// object decodes a JSON object and rejects members not in allowed.
func object(body []byte, code string, allowed ...string) (map[string]json.RawMessage, *bodyError) {
	if !utf8.Valid(body) || !json.Valid(body) {
		return nil, &bodyError{http.StatusBadRequest, "invalid_json", "The body is not valid UTF-8 JSON."}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, &bodyError{http.StatusBadRequest, "invalid_json", "The body must be a JSON object."}
	}
	if err := onlyKeys(obj, code, allowed...); err != nil {
		return nil, err
	}
	return obj, nil
}

func onlyKeys(obj map[string]json.RawMessage, code string, allowed ...string) *bodyError {
	for k := range obj {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			return invalid(code, "The field %q is not known here.", k)
		}
	}
	return nil
}

// str decodes a string member; required members must be present.
func str(obj map[string]json.RawMessage, key, code string, required bool) (string, *bodyError) {
	raw, ok := obj[key]
	if !ok {
		if required {
			return "", invalid(code, "The field %q is required.", key)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalid(code, "The field %q must be a string.", key)
	}
	return s, nil
}

// checkedStr reads the required string obj[key] and checks it with valid;
// a value valid refuses is refused with sentence.
func checkedStr(obj map[string]json.RawMessage, key, code string, valid func(string) bool, sentence string) (string, *bodyError) {
	s, err := str(obj, key, code, true)
	if err == nil && !valid(s) {
		err = invalid(code, "%s", sentence)
	}
	return s, err
}

// shortName reports an ID or a name of 1 to 64 bytes.
func shortName(s string) bool { return s != "" && len(s) <= 64 }

// checkText applies the reply rules (text.Check): nonblank, at most max
// characters, no control characters but newlines and tabs.
func checkText(s string, max int, what, code string) *bodyError {
	if p := text.Check(s, max, what); p != "" {
		return invalid(code, "%s", p)
	}
	return nil
}

// plainText is checkText plus no markup (text.Plain).
func plainText(s string, max int, what, code string) *bodyError {
	if p := text.Plain(s, max, what); p != "" {
		return invalid(code, "%s", p)
	}
	return nil
}

// stageText is plainText plus no outside links.
func stageText(s string, max int, what string) *bodyError {
	if err := plainText(s, max, what, "invalid_item"); err != nil {
		return err
	}
	if text.HasLink(s) {
		return invalid("invalid_item", "The %s must not contain outside links.", what)
	}
	return nil
}

// exchangeRequest is the body of POST pairings/exchange.
type exchangeRequest struct {
	Code        string
	Name        string
	Kind        string
	Description string
	// Alive is the card's alive extension, not yet checked (look.go); nil
	// when it has none.
	Alive map[string]any
}

func decodeExchange(body []byte) (exchangeRequest, *bodyError) {
	const code = "invalid_request"
	obj, err := object(body, code, "code", "card")
	if err != nil {
		return exchangeRequest{}, err
	}
	var req exchangeRequest
	pairingCode := func(s string) bool { return strings.TrimSpace(s) != "" && len(s) <= 64 }
	if req.Code, err = checkedStr(obj, "code", code, pairingCode, "The pairing code must be the code your owner created."); err != nil {
		return req, err
	}
	rawCard, ok := obj["card"]
	if !ok {
		return req, invalid(code, "The field \"card\" is required.")
	}
	var card map[string]json.RawMessage
	if json.Unmarshal(rawCard, &card) != nil || card == nil {
		return req, invalid(code, "The card must be a JSON object.")
	}
	if req.Name, err = str(card, "name", code, true); err != nil {
		return req, err
	}
	if req.Kind, err = str(card, "kind", code, true); err != nil {
		return req, err
	}
	if req.Description, err = str(card, "description", code, false); err != nil {
		return req, err
	}
	if err := checkName(req.Name, req.Kind, code); err != nil {
		return req, err
	}
	if req.Description != "" {
		if err := plainText(req.Description, 500, "card description", code); err != nil {
			return req, err
		}
	}
	if raw, ok := card["skills"]; ok {
		var skills []map[string]json.RawMessage
		if json.Unmarshal(raw, &skills) != nil || len(skills) > 100 {
			return req, invalid(code, "The card's skills must be a list of at most 100 objects.")
		}
	}
	req.Alive = cardAlive(card)
	return req, nil
}

// checkName checks a participant's name and kind.
func checkName(name, kind, code string) *bodyError {
	if err := plainText(name, 80, "name", code); err != nil {
		return err
	}
	if p := text.Kind(kind); p != "" {
		return invalid(code, "%s", p)
	}
	return nil
}

// replyRequest is the body of POST replies.
type replyRequest struct {
	RelayID string
	Text    string
}

func decodeReply(body []byte) (replyRequest, *bodyError) {
	const code = "invalid_reply"
	obj, err := object(body, code, "relay_id", "text")
	if err != nil {
		return replyRequest{}, err
	}
	var req replyRequest
	if req.RelayID, err = checkedStr(obj, "relay_id", code, shortName, "The relay_id must be the ID of an inbox item."); err != nil {
		return req, err
	}
	if req.Text, err = str(obj, "text", code, true); err != nil {
		return req, err
	}
	if err := checkText(req.Text, MaxReplyChars, "reply", code); err != nil {
		return req, err
	}
	return req, nil
}

// noticeRequest is the body of POST notices: a notice's text, or one stage
// item (normalised JSON).
type noticeRequest struct {
	Text     string
	ItemType string
	Item     json.RawMessage
}

// Gestures a stage item may make.
var gestures = map[string]bool{"wave": true, "nod": true, "shrug": true, "think": true, "celebrate": true, "point": true, "bow": true}

func decodeNotice(body []byte) (noticeRequest, *bodyError) {
	obj, err := object(body, "invalid_notice", "text", "item")
	if err != nil {
		return noticeRequest{}, err
	}
	_, hasText := obj["text"]
	_, hasItem := obj["item"]
	switch {
	case hasText && hasItem:
		return noticeRequest{}, invalid("invalid_notice", "Send either text (a notice) or item (a stage item), not both.")
	case hasText:
		text, err := str(obj, "text", "invalid_notice", true)
		if err != nil {
			return noticeRequest{}, err
		}
		if err := plainText(text, MaxNoticeChars, "notice", "invalid_notice"); err != nil {
			return noticeRequest{}, err
		}
		return noticeRequest{Text: text}, nil
	case hasItem:
		return decodeStageItem(obj["item"])
	}
	return noticeRequest{}, invalid("invalid_notice", "Send text (a notice) or item (a stage item).")
}

func decodeStageItem(raw json.RawMessage) (noticeRequest, *bodyError) {
	const code = "invalid_item"
	var item map[string]json.RawMessage
	if json.Unmarshal(raw, &item) != nil || item == nil {
		return noticeRequest{}, invalid(code, "The item must be a JSON object.")
	}
	typ, err := str(item, "type", code, true)
	if err != nil {
		return noticeRequest{}, err
	}
	var out any
	switch typ {
	case "say", "ask":
		if err := onlyKeys(item, code, "type", "text"); err != nil {
			return noticeRequest{}, err
		}
		text, err := str(item, "text", code, true)
		if err != nil {
			return noticeRequest{}, err
		}
		if err := stageText(text, 280, typ+" text"); err != nil {
			return noticeRequest{}, err
		}
		out = map[string]string{"type": typ, "text": text}
	case "progress":
		if err := onlyKeys(item, code, "type", "step", "total", "label"); err != nil {
			return noticeRequest{}, err
		}
		step, err := integer(item, "step", code)
		if err != nil {
			return noticeRequest{}, err
		}
		total, err := integer(item, "total", code)
		if err != nil {
			return noticeRequest{}, err
		}
		if total < 1 || total > 1000 || step < 0 || step > total {
			return noticeRequest{}, invalid(code, "Progress needs a total from 1 to 1000 and a step from 0 to the total.")
		}
		label, err := str(item, "label", code, false)
		if err != nil {
			return noticeRequest{}, err
		}
		p := map[string]any{"type": typ, "step": step, "total": total}
		if _, ok := item["label"]; ok {
			if err := stageText(label, 80, "progress label"); err != nil {
				return noticeRequest{}, err
			}
			p["label"] = label
		}
		out = p
	case "card":
		if err := onlyKeys(item, code, "type", "title", "lines", "link"); err != nil {
			return noticeRequest{}, err
		}
		title, err := str(item, "title", code, true)
		if err != nil {
			return noticeRequest{}, err
		}
		if err := stageText(title, 80, "card title"); err != nil {
			return noticeRequest{}, err
		}
		c := map[string]any{"type": typ, "title": title}
		if raw, ok := item["lines"]; ok {
			var lines []string
			if json.Unmarshal(raw, &lines) != nil || len(lines) > 6 {
				return noticeRequest{}, invalid(code, "The card's lines must be a list of at most 6 strings.")
			}
			for _, l := range lines {
				if err := stageText(l, 120, "card line"); err != nil {
					return noticeRequest{}, err
				}
			}
			c["lines"] = lines
		}
		if _, ok := item["link"]; ok {
			link, err := str(item, "link", code, true)
			if err != nil {
				return noticeRequest{}, err
			}
			if !localLink(link) {
				return noticeRequest{}, invalid(code, "The card link must be a path on this site, such as /dashboard; outside links are not allowed.")
			}
			c["link"] = link
		}
		out = c
	case "gesture":
		if err := onlyKeys(item, code, "type", "name"); err != nil {
			return noticeRequest{}, err
		}
		name, err := str(item, "name", code, true)
		if err != nil {
			return noticeRequest{}, err
		}
		if !gestures[name] {
			return noticeRequest{}, invalid(code, "The gesture %q is not known; use wave, nod, shrug, think, celebrate, point or bow.", name)
		}
		out = map[string]string{"type": typ, "name": name}
	default:
		return noticeRequest{}, invalid(code, "The item type %q is not known; use say, progress, card, gesture or ask.", typ)
	}
	b, _ := json.Marshal(out)
	return noticeRequest{ItemType: typ, Item: b}, nil
}

// localLink accepts a path on this site: "/..." without a host, scheme,
// backslash, spaces or control characters.
func localLink(s string) bool {
	if len(s) < 1 || len(s) > 200 || s[0] != '/' || strings.HasPrefix(s, "//") {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c == '\\' || c == 0x7f || c > 0x7e {
			return false
		}
	}
	return !strings.Contains(s, ":")
}

func integer(obj map[string]json.RawMessage, key, code string) (int, *bodyError) {
	raw, ok := obj[key]
	if !ok {
		return 0, invalid(code, "The field %q is required.", key)
	}
	var n int
	d := json.NewDecoder(bytes.NewReader(raw))
	if err := d.Decode(&n); err != nil {
		return 0, invalid(code, "The field %q must be a whole number.", key)
	}
	return n, nil
}
