package openaiapi

import (
	"encoding/json"
	"net/http"

	"github.com/harnest/harnest/runtime"
)

// inputItemsPages bounds how many transcript pages a lookup reads.
const inputItemsPages = 50

// inputItemList is the answer of GET /v1/responses/{id}/input_items.
type inputItemList struct {
	Object  string            `json:"object"` // always "list"
	Data    []json.RawMessage `json:"data"`
	FirstID *string           `json:"first_id"`
	LastID  *string           `json:"last_id"`
	HasMore bool              `json:"has_more"`
}

// inputItems answers GET /v1/responses/{id}/input_items: the request's
// input items, as the door recorded them when the response started (so
// also while it runs, on any replica), a page of them: limit (1 to 100,
// default 20), order (desc, the default, or asc) and after (the ID of the
// last item of the previous page). A response with no record (made before
// records were kept) lists the user message the transcript keeps of its
// turn, once the turn completed.
func (d *door) inputItems(w http.ResponseWriter, r *http.Request, p runtime.Principal, id string) {
	q, f, ok := parseItemsQuery(r)
	if !ok {
		writeFailure(w, http.StatusBadRequest, f)
		return
	}
	ref, _, ok := d.lookup(w, r, p, id)
	if !ok {
		return
	}
	var items []json.RawMessage
	if rec, found := d.readRecord(r.Context(), p, ref); found {
		items = rec.Input
	} else if ref.After < 0 {
		item, err := d.turnInput(r, p, ref)
		if err != nil {
			writeError(w, err)
			return
		}
		if item != nil {
			b, _ := json.Marshal(item)
			items = append(items, b)
		}
	}
	writeJSON(w, q.page(items))
}

// inputMessage is a user message as an input item.
type inputMessage struct {
	Type    string `json:"type"` // message
	ID      string `json:"id"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

type inputText struct {
	Type string `json:"type"` // input_text
	Text string `json:"text"`
}

// turnInput finds the user message of the response in the transcript.
func (d *door) turnInput(r *http.Request, p runtime.Principal, ref responseRef) (*inputMessage, error) {
	cursor := ""
	for range inputItemsPages {
		page, err := d.svc.Messages(r.Context(), p, ref.SessionID, cursor, 100)
		if err != nil {
			return nil, err
		}
		for _, raw := range page.Messages {
			var m struct {
				ID       string          `json:"id"`
				Role     string          `json:"role"`
				Content  json.RawMessage `json:"content"`
				Metadata struct {
					ResponseID string `json:"responseId"`
				} `json:"metadata"`
			}
			if json.Unmarshal(raw, &m) != nil || m.Role != "user" || m.Metadata.ResponseID != ref.ResponseID {
				continue
			}
			return &inputMessage{Type: "message", ID: m.ID, Status: "completed", Role: "user", Content: inputContent(m.Content)}, nil
		}
		if page.NextCursor == nil {
			return nil, nil
		}
		cursor = *page.NextCursor
	}
	return nil, nil
}

// inputContent is a transcript message's content as input parts: its text,
// and each media part as a text placeholder naming its type.
func inputContent(raw json.RawMessage) []any {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []any{inputText{Type: "input_text", Text: text}}
	}
	var parts []map[string]string
	_ = json.Unmarshal(raw, &parts)
	out := []any{}
	for _, part := range parts {
		if part["type"] == "text" {
			out = append(out, inputText{Type: "input_text", Text: part["text"]})
		} else {
			out = append(out, inputText{Type: "input_text", Text: "[" + part["type"] + " " + part["mediaType"] + " attached]"})
		}
	}
	return out
}
