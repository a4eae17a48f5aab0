package conformance

import (
	"testing"
)

// TestMsgJSSDK runs ../a2a-js/msg10.mjs (@a2a-js/sdk 1.3.0, A2A 1.0) and
// msg03.mjs (0.3.14, A2A 0.3) against harnest serving the test worker: a
// file and a data part echoed back as artifacts, a chunked artifact, and
// rejected and auth-required tasks, on JSON-RPC and HTTP+JSON.
func TestMsgJSSDK(t *testing.T) {
	js := findNodeSDKs(t)
	base := startMsgWorker(t)
	for _, script := range []string{"msg10.mjs", "msg03.mjs"} {
		t.Run(script, func(t *testing.T) {
			js.run(t, script, base)
		})
	}
}
