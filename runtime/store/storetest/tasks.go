package storetest

import "testing"

// testTasks is the contract of the store's tasks operations (stub).
func testTasks(t *testing.T, h Harness) {}
