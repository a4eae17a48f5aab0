package agui_test

import (
	"strings"
	"testing"
)

// forwardedProps.onBusy is the busy-session strategy of the run (the
// runtime's onBusy): a value that names none is refused with 400.
func TestForwardedPropsOnBusy(t *testing.T) {
	eachStore(t, setup{}, func(t *testing.T, ts *testServer) {
		msgs := `"messages":[{"id":"u1","role":"user","content":"hi"}]`
		r := ts.run(`{"threadId":"th-ob",` + msgs + `,"forwardedProps":{"onBusy":"later"}}`)
		mustStatus(t, r, 400)
		if !strings.Contains(string(r.Body), "onBusy") {
			t.Fatalf("400 body %s does not name onBusy", r.Body)
		}
		mustStatus(t, ts.run(`{"threadId":"th-ob2",`+msgs+`,"forwardedProps":{"onBusy":"enqueue"}}`), 200)
	})
}
