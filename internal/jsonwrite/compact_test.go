package jsonwrite

import (
	"encoding/json"
	"testing"
)

func TestCompact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{ \"a\" : [1, 2] ,\n \"b\": {} }", `{"a":[1,2],"b":{}}`},
		{`{"a":1}`, `{"a":1}`},
		{`{"a":`, `{"a":`}, // not JSON: as it is
		{`"<&>"`, `"<&>"`}, // compacted, not escaped
	} {
		if got := Compact(json.RawMessage(tc.in)); string(got) != tc.want {
			t.Errorf("Compact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Compact(nil); got != nil {
		t.Errorf("Compact(nil) = %q, want nil (absent stays absent)", got)
	}
}
