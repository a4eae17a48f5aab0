package conformance

import (
	"testing"
)

// TestJSSDKWire runs ../a2a-js/wire10.mjs: the extended card with and
// without the token, and streaming calls that fail before their first
// event, with the @a2a-js/sdk 1.3.0 client on both bindings.
func TestJSSDKWire(t *testing.T) {
	js := findNodeSDKs(t)
	secured, plain := startSecured(t), startHarnest(t, "{}")
	js.run(t, "wire10.mjs", secured.URL, securedToken, plain.URL)
}
