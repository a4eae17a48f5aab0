package memory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harnest/harnest/store"
)

// FieldError is a refused request: Field names what was wrong (as the
// caller wrote it: "namespace", "value", "ttlSeconds" …), Detail says why
// and what to send instead.
type FieldError struct {
	Field  string
	Detail string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Detail }

func fieldError(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Detail: fmt.Sprintf(format, args...)}
}

// checkName checks a namespace or a key: 1..max bytes of UTF-8 with no
// control character and no '/'.
func checkName(field, s string, max int) error {
	switch {
	case s == "":
		return fieldError(field, "required: 1 to %d bytes of text", max)
	case len(s) > max:
		return fieldError(field, "must be at most %d bytes, got %d", max, len(s))
	case !utf8.ValidString(s):
		return fieldError(field, "must be UTF-8 text")
	case strings.ContainsRune(s, '/') || strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fieldError(field, "must not hold '/' or control characters")
	}
	return nil
}

func checkPut(p Put) error {
	if err := checkName("namespace", p.Namespace, MaxNamespaceBytes); err != nil {
		return err
	}
	if err := checkName("key", p.Key, MaxKeyBytes); err != nil {
		return err
	}
	switch v := bytes.TrimSpace(p.Value); {
	case len(v) == 0:
		return fieldError("value", "required: any JSON value (an object, a string, a number …)")
	case len(v) > MaxValueBytes:
		return fieldError("value", "must be at most %d bytes of JSON, got %d", MaxValueBytes, len(v))
	case !json.Valid(v):
		return fieldError("value", "must be valid JSON")
	}
	switch {
	case len(p.Text) > MaxTextBytes:
		return fieldError("text", "must be at most %d bytes, got %d", MaxTextBytes, len(p.Text))
	case !utf8.ValidString(p.Text):
		return fieldError("text", "must be UTF-8 text")
	case p.TTLSeconds < 0 || p.TTLSeconds > MaxTTLSeconds:
		return fieldError("ttlSeconds", "must be from 1 to %d seconds (0 or absent: the item lives until deleted)", MaxTTLSeconds)
	}
	return nil
}

func checkSearch(q *Search) error {
	switch {
	case strings.TrimSpace(q.Query) == "":
		return fieldError("query", "required: the words to look for")
	case len(q.Query) > MaxQueryBytes:
		return fieldError("query", "must be at most %d bytes, got %d", MaxQueryBytes, len(q.Query))
	case !utf8.ValidString(q.Query):
		return fieldError("query", "must be UTF-8 text")
	case q.Limit < 0 || q.Limit > store.MaxMemoryHits:
		return fieldError("limit", "must be from 1 to %d", store.MaxMemoryHits)
	}
	if q.Limit == 0 {
		q.Limit = DefaultSearchHits
	}
	if q.Namespace != "" {
		return checkName("namespace", q.Namespace, MaxNamespaceBytes)
	}
	return nil
}

// compact is a JSON value without insignificant space.
func compact(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}
