package neutral

import (
	"encoding/json"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/jsonwrite"
)

// readObject reads a JSON object body in the order the API checks it:
// content type (415), size (413), JSON (400), object (400). It returns the
// object's members; ok is false when an error was already written.
func (a *API) readObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	body, ok := a.readBody(w, r)
	if !ok {
		return nil, false
	}
	return httpapi.DecodeObject(w, body)
}

// readBody is readObject's first half: content type (415), size (413) and
// UTF-8 (400). Its caller decodes the JSON, or hands the body to
// httpapi.DecodeObject.
func (a *API) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !isJSON(r.Header.Get("Content-Type")) {
		fail(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be application/json")
		return nil, false
	}
	return httpapi.ReadBody(w, r, int64(a.maxBody))
}

// isJSON reports whether a Content-Type names application/json. The exact
// string, which nearly every client sends, needs no parsing.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json"
}

// fieldError is an envelope problem: which field, and what it must be.
type fieldError struct{ field, must string }

func (e fieldError) Error() string { return e.field + " " + e.must }

// onlyKeys reports the member that is not allowed; of several, the first
// in byte order, so that the error is the same every time.
func onlyKeys(obj map[string]json.RawMessage, allowed ...string) error {
	unknown, found := "", false
	for k := range obj {
		if !slices.Contains(allowed, k) && (!found || k < unknown) {
			unknown, found = k, true
		}
	}
	if found {
		return fieldError{strconv.Quote(unknown), "is not a known field"}
	}
	return nil
}

// stringField decodes an optional JSON string member.
func stringField(obj map[string]json.RawMessage, key string) (string, bool, error) {
	raw, ok := obj[key]
	if !ok {
		return "", false, nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", true, fieldError{key, "must be a string"}
	}
	return s, true, nil
}

// boolField decodes an optional JSON boolean member (true or false only).
func boolField(obj map[string]json.RawMessage, key string) (bool, error) {
	raw, ok := obj[key]
	if !ok {
		return false, nil
	}
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fieldError{key, "must be a boolean"}
}

// objectField returns an optional JSON object member as raw JSON.
func objectField(obj map[string]json.RawMessage, key string) (json.RawMessage, bool, error) {
	raw, ok := obj[key]
	if !ok {
		return nil, false, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, true, fieldError{key, "must be an object"}
	}
	return raw, true, nil
}

// objectMembers returns an optional JSON object member split into members.
func objectMembers(obj map[string]json.RawMessage, key string) (map[string]json.RawMessage, bool, error) {
	raw, ok, err := objectField(obj, key)
	if !ok || err != nil {
		return nil, ok, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, true, fieldError{key, "must be an object"}
	}
	for k, v := range m {
		m[k] = jsonwrite.Compact(v)
	}
	return m, true, nil
}
