package jsonwrite

import (
	"bytes"
	"encoding/json"
)

// Compact is v without insignificant white space, so that what is stored
// or sent again is canonical. v comes back as it is when it is empty (an
// absent value stays nil) or not valid JSON.
func Compact(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return v
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return v
	}
	return buf.Bytes()
}
