package memoryapi

import (
	"bytes"
	"encoding/json"
	"errors"
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
	if err := strict(body, &in, "value", "text", "ttlSeconds"); err != nil {
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
	if err := strict(body, &in, "query", "namespace", "limit"); err != nil {
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

// strict decodes a JSON object into v, refusing anything else, and names
// the member that is unknown or of the wrong type.
func strict(body []byte, v any, known ...string) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return &memory.FieldError{Field: "body", Detail: "must be a JSON object"}
	}
	allowed := map[string]bool{}
	for _, k := range known {
		allowed[k] = true
	}
	for k := range members {
		if !allowed[k] {
			return &memory.FieldError{Field: "body", Detail: fmt.Sprintf("unknown member %q; known: %v", k, known)}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &memory.FieldError{Field: te.Field, Detail: "has the wrong type (got a JSON " + te.Value + ")"}
		}
		return &memory.FieldError{Field: "body", Detail: "must be a JSON object"}
	}
	return nil
}
