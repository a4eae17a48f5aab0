package storetest

import "testing"

func testPushConfigs(t *testing.T, h Harness) {
	t.Skip("not written yet")
}
