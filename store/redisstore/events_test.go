package redisstore

import (
	"reflect"
	"testing"

	"github.com/harnest/harnest/store"
)

// A batch comes back from its member as it went in, whatever its types and
// JSON hold (a type may have a colon; JSON may hold anything), and a member
// that is not a batch is an error, not a panic.
func TestEventMemberRoundTrip(t *testing.T) {
	for _, batch := range [][]store.Event{
		{{Sequence: 0, Type: "response.created", JSON: []byte(`{"a":"b:c,d"}`)}},
		{{Sequence: 7, Type: "x:y", JSON: []byte(`{}`)}, {Sequence: 8, Type: "z", JSON: []byte(`[1,2]`)}, {Sequence: 9, Type: "", JSON: []byte(`"s"`)}},
	} {
		got, err := eventBatch(string(eventMember(batch)))
		if err != nil || !reflect.DeepEqual(got, batch) {
			t.Fatalf("%q: got %+v %v, want %+v", eventMember(batch), got, err, batch)
		}
	}
	for _, bad := range []string{"", "1", "1:", "1:5:ab[]", "x:1:a[{}]", "1:-1:[{}]", "1:1:a[{}", "1:3:a,b[{}]"} {
		if got, err := eventBatch(bad); err == nil {
			t.Fatalf("%q decoded as %+v", bad, got)
		}
	}
}
