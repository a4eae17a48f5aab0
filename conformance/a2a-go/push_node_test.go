package conformance

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil"
)

// TestPushJSSDK runs ../a2a-js/push.mjs: the @a2a-js/sdk 1.3.0 and 0.3.14
// clients send messages with push configs and manage configs over
// JSON-RPC and HTTP+JSON; the receiver here then holds each task's
// notifications, in its version's shape and signed.
func TestPushJSSDK(t *testing.T) {
	js := findNodeSDKs(t)
	rc := testutil.NewReceiver(t)
	s := startPushHarnest(t, rc)
	js.run(t, "push.mjs", s.URL, rc.URL(""))
	for _, transport := range []string{"JSONRPC", "HTTP+JSON"} {
		for _, c := range []struct{ version, done, shape string }{
			{"1.0", "TASK_STATE_COMPLETED", "statusUpdate"},
			{"0.3", `"state":"completed"`, `"kind":"task"`},
		} {
			path := "/js/" + c.version + "/" + transport
			got := rc.On(path).Wait(t, "a notification with "+c.done, testutil.DeliveredWith(c.done))
			for i, n := range got {
				var v map[string]any
				if json.Unmarshal([]byte(n.Body), &v) != nil || (i > 0 && c.version == "1.0" && len(v) != 1) {
					t.Errorf("%s notification %d: %s", path, i, n.Body)
				}
				if n.Header.Get("X-A2A-Notification-Token") != "tok-js" {
					t.Errorf("%s notification %d headers %v", path, i, n.Header)
				}
				checkJWT(t, s, n)
			}
			if !strings.Contains(got[len(got)-1].Body, c.shape) {
				t.Errorf("%s: the last notification is %s", path, got[len(got)-1].Body)
			}
		}
	}
}
