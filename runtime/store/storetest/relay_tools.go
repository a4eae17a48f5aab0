package storetest

import "testing"

func testRelayTools(t *testing.T, h Harness) {
	t.Skip("not written yet")
}
