package a2a

import (
	"encoding/json"
	"testing"
)

// FuzzDecodePush: the push config decoders never panic; what they accept
// has a bounded task ID, and a send's config is marked with its version.
func FuzzDecodePush(f *testing.F) {
	for _, seed := range []string{
		`{"taskId":"t","id":"c","url":"https://x/h","token":"k","authentication":{"scheme":"Bearer","credentials":"c"}}`,
		`{"taskId":"t","pushNotificationConfig":{"id":"c","url":"https://x","authentication":{"schemes":["Bearer"]}}}`,
		`{"parent":"tasks/t","config_id":"c","config":{"name":"tasks/t/pushNotificationConfigs/c","push_notification_config":{"url":"https://x"}}}`,
		`{"id":"t","pushNotificationConfigId":"c"}`,
		`{"configuration":{"taskPushNotificationConfig":{"url":"https://x"}}}`,
		`{"configuration":{"pushNotificationConfig":{"url":"https://x","token":"t"}}}`,
		`{"config":{"config":{"config":{}}}}`, `[]`, `null`, `{"taskId":1}`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, idIsTask bool) {
		if r, err := decodePush(json.RawMessage(raw), idIsTask); err == nil && len(r.TaskID) > maxIDLength {
			t.Fatalf("accepted a task ID of %d bytes", len(r.TaskID))
		}
		if c, err := decodeSendPush(json.RawMessage(raw), v03); err == nil && c != nil && c.Protocol != v03 {
			t.Fatalf("a send's config lost its version: %+v", c)
		}
	})
}
