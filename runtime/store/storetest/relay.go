package storetest

import "testing"

// testRelay is the contract of the store's relay operations (stub).
func testRelay(t *testing.T, h Harness) {}
