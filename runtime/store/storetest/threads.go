package storetest

import "testing"

// testThreads is the contract of the store's threads operations (stub).
func testThreads(t *testing.T, h Harness) {}
