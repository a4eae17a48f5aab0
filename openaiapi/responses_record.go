package openaiapi

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// requestRecord is what the door keeps of the request that made a
// response (store.ResponseRequests), written before the create request is
// answered (or its stream starts): what the response object repeats, and
// the request's input items for GET /v1/responses/{id}/input_items, both
// readable on any replica while the response runs and after.
type requestRecord struct {
	Echo  echoed            `json:"echo"`
	Input []json.RawMessage `json:"input"`
}

// recordID names a segment's record among its session's.
func recordID(ref responseRef) string { return ref.ResponseID + "." + strconv.Itoa(ref.After+1) }

// keepRequest records the request of a stored response. A record that
// cannot be written is logged, not fatal: the response runs, and reads of
// it repeat less (as for a response recorded before records were kept).
func (d *door) keepRequest(ctx context.Context, p runtime.Principal, ref responseRef, req createRequest) {
	if d.requests == nil || !req.Echo.Store {
		return
	}
	rec := requestRecord{Echo: req.Echo, Input: inputItemsOf(req.Input, ref)}
	b, err := json.Marshal(rec)
	if err == nil {
		err = d.requests.PutResponseRequest(ctx, p.UserID, ref.SessionID, recordID(ref), b)
	}
	if err != nil {
		d.log.Warn("openresponses: the request of a response was not recorded; reading it back repeats less of it",
			"response", ref.ResponseID, "err", err)
	}
}

// readRecord reads the record of a segment; ok is false when there is none
// (the response is not stored, it was made before records were kept, or
// the store did not answer).
func (d *door) readRecord(ctx context.Context, p runtime.Principal, ref responseRef) (requestRecord, bool) {
	if d.requests == nil {
		return requestRecord{}, false
	}
	b, found, err := d.requests.GetResponseRequest(ctx, p.UserID, ref.SessionID, recordID(ref))
	if err != nil || !found {
		return requestRecord{}, false
	}
	var rec requestRecord
	if json.Unmarshal(b, &rec) != nil {
		return requestRecord{}, false
	}
	return rec, true
}

// echoOf is what a response read back repeats: its record's, or (with no
// record) the receipt's metadata and what the ID says.
func (d *door) echoOf(ctx context.Context, p runtime.Principal, ref responseRef, env runtime.Envelope) echoed {
	if rec, ok := d.readRecord(ctx, p, ref); ok {
		rec.Echo.Background = ref.Background
		return rec.Echo
	}
	return echoed{Model: d.model, Metadata: env.Metadata, Store: true, Background: ref.Background}
}

// inputItemsOf is the request's input as the items input_items lists:
// a string input is one user message; messages get the specification's
// shape (content as parts, an ID, status completed), media as a text
// placeholder naming its type (never the bytes); other items (answers,
// items echoed back) as sent, with an ID when they had none.
func inputItemsOf(input json.RawMessage, ref responseRef) []json.RawMessage {
	var text string
	if len(input) > 0 && input[0] == '"' && json.Unmarshal(input, &text) == nil {
		b, _ := json.Marshal(inputMessage{Type: "message", ID: inputItemID(ref, 0), Status: "completed", Role: "user",
			Content: []any{inputText{Type: "input_text", Text: text}}})
		return []json.RawMessage{b}
	}
	var items []map[string]json.RawMessage
	_ = json.Unmarshal(input, &items)
	out := make([]json.RawMessage, 0, len(items))
	for i, it := range items {
		var typ, id string
		_ = json.Unmarshal(it["type"], &typ)
		_ = json.Unmarshal(it["id"], &id)
		if id == "" {
			id = inputItemID(ref, i)
		}
		if typ == "" || typ == "message" {
			var role string
			_ = json.Unmarshal(it["role"], &role)
			b, _ := json.Marshal(inputMessage{Type: "message", ID: id, Status: "completed", Role: role, Content: messageParts(role, it["content"])})
			out = append(out, b)
			continue
		}
		it["id"], _ = json.Marshal(id)
		b, _ := json.Marshal(it)
		out = append(out, b)
	}
	return out
}

// inputItemID names the i-th input item of a segment that had no ID.
func inputItemID(ref responseRef, i int) string {
	return "msg_" + ref.ResponseID[5:] + "_in" + strconv.Itoa(ref.After+1) + "_" + strconv.Itoa(i)
}

// messageParts is a message's content as parts: text as input_text (an
// assistant's as output_text), an image or a file sent inline as a
// placeholder naming its type, the other parts as sent.
func messageParts(role string, raw json.RawMessage) []any {
	textType := "input_text"
	if role == "assistant" {
		textType = "output_text"
	}
	var text string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &text) == nil {
		return []any{inputText{Type: textType, Text: text}}
	}
	var parts []map[string]json.RawMessage
	_ = json.Unmarshal(raw, &parts)
	out := make([]any, 0, len(parts))
	for _, part := range parts {
		var typ, url string
		_ = json.Unmarshal(part["type"], &typ)
		switch typ {
		case "input_image":
			_ = json.Unmarshal(part["image_url"], &url)
		case "input_file":
			_ = json.Unmarshal(part["file_url"], &url)
			if _, inline := part["file_data"]; inline {
				url = "data:"
			}
		}
		if strings.HasPrefix(url, "data:") {
			out = append(out, inputText{Type: "input_text", Text: "[" + strings.TrimPrefix(typ, "input_") + " " + dataURLType(url, "") + " attached]"})
			continue
		}
		out = append(out, part)
	}
	return out
}
