package memoryapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/harnest/harnest/internal/memory"
)

// decodePut reads a PUT body: {"value", "text"?, "ttlSeconds"?}, strictly
// (an unknown member is refused by name).
func decodePut(body []byte) (memory.Put, error) {
	var in struct {
		Value      json.RawMessage `json:"value"`
		Text       *string         `json:"text"`
		TTLSeconds *json.Number    `json:"ttlSeconds"`
	}
	if err := strict(body, map[string]any{"value": &in.Value, "text": &in.Text, "ttlSeconds": &in.TTLSeconds}); err != nil {
		return memory.Put{}, err
	}
	p := memory.Put{Value: in.Value}
	if bytes.Equal(bytes.TrimSpace(in.Value), []byte("null")) {
		p.Value = nil // null is no value: the field is required
	}
	if in.Text != nil {
		p.Text = *in.Text
	}
	if in.TTLSeconds != nil {
		n, err := in.TTLSeconds.Int64()
		if err != nil || n < 1 {
			return memory.Put{}, &memory.FieldError{Field: "ttlSeconds", Detail: fmt.Sprintf("must be a whole number of seconds from 1 to %d", memory.MaxTTLSeconds)}
		}
		p.TTLSeconds = n
	}
	return p, nil
}

// decodeSearch reads a search body: {"query", "namespace"?, "limit"?}.
func decodeSearch(body []byte) (memory.Search, error) {
	var in struct {
		Query     *string      `json:"query"`
		Namespace *string      `json:"namespace"`
		Limit     *json.Number `json:"limit"`
	}
	if err := strict(body, map[string]any{"query": &in.Query, "namespace": &in.Namespace, "limit": &in.Limit}); err != nil {
		return memory.Search{}, err
	}
	var s memory.Search
	if in.Query != nil {
		s.Query = *in.Query
	}
	if in.Namespace != nil {
		s.Namespace = *in.Namespace
		if s.Namespace == "" {
			return memory.Search{}, &memory.FieldError{Field: "namespace", Detail: "must name a namespace when given (leave it out to search every namespace)"}
		}
	}
	if in.Limit != nil {
		n, err := in.Limit.Int64()
		if err != nil || n < 1 || n > 100 {
			return memory.Search{}, &memory.FieldError{Field: "limit", Detail: "must be an integer from 1 to 100"}
		}
		s.Limit = int(n)
	}
	return s, nil
}

// strict decodes a JSON object member by member into fields (member
// name to a pointer), refusing anything else: a member it does not know,
// or one of the wrong type, is named.
func strict(body []byte, fields map[string]any) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return &memory.FieldError{Field: "body", Detail: "must be a JSON object"}
	}
	for k, raw := range members {
		dst, ok := fields[k]
		if !ok {
			return &memory.FieldError{Field: "body", Detail: fmt.Sprintf("unknown member %q", k)}
		}
		if _, isRaw := dst.(*json.RawMessage); isRaw {
			*dst.(*json.RawMessage) = raw
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(dst); err != nil {
			return &memory.FieldError{Field: k, Detail: "has the wrong type"}
		}
	}
	return nil
}
