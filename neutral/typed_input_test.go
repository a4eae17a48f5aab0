package neutral

import (
	"net/http/httptest"
	"reflect"
	"testing"
)

// TestTypedFastPathAgreesWithTheGeneralPath checks that a typed agent's
// object input decodes the same on both paths, and that an untyped
// agent's fast path leaves it to the general one, which refuses it.
func TestTypedFastPathAgreesWithTheGeneralPath(t *testing.T) {
	for _, body := range []string{
		`{"input":{"city":"Paris","days":3}}`,
		`{"input": { "city" : "Paris",  "days":[1, 2,{"a":null}] },"stream":true,"sessionId":"s1","metadata":{"k":"v"}}`,
		`{"input":{}}`,
	} {
		fast, ok := fastRequest([]byte(body), true)
		if !ok {
			t.Fatalf("%s: the typed fast path gave up", body)
		}
		general, ok := generalResponseRequest(httptest.NewRecorder(), []byte(body), true)
		if !ok || !reflect.DeepEqual(fast, general) {
			t.Fatalf("%s: fast %#v, general %#v", body, fast, general)
		}
		if _, ok := fastRequest([]byte(body), false); ok {
			t.Fatalf("%s: the untyped fast path took an object", body)
		}
		if _, ok := generalResponseRequest(httptest.NewRecorder(), []byte(body), false); ok {
			t.Fatalf("%s: the untyped general path took an object", body)
		}
	}
}
