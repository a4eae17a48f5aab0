package storetest

import "testing"

func testOutbox(t *testing.T, h Harness) {
	t.Skip("not written yet")
}
