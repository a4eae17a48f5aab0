package jsonwrite

import (
	"encoding/json"
	"testing"
)

// TestBytesOmitAsEncodingJSON: BytesOmit writes what encoding/json writes
// for a []byte field with omitempty.
func TestBytesOmitAsEncodingJSON(t *testing.T) {
	for _, v := range [][]byte{nil, {}, []byte("hi"), {0, 0xff, 0xfe, '"', '<'}} {
		want, err := json.Marshal(struct {
			B []byte `json:"b,omitempty"`
		}{v})
		if err != nil {
			t.Fatal(err)
		}
		o := Begin(nil)
		o.BytesOmit("b", v)
		if got := o.End(); string(got) != string(want) {
			t.Errorf("BytesOmit(%v) = %s, want %s", v, got, want)
		}
	}
}
