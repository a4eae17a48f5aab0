package store

import "encoding/json"

// Receipt statuses that are final: once a receipt has one, it never changes
// (the store refuses to overwrite it).
var finalStatuses = map[string]bool{"completed": true, "failed": true, "cancelled": true, "denied": true}

// IsFinalReceipt reports whether a receipt (a response envelope) is final.
func IsFinalReceipt(receipt []byte) bool {
	var env struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(receipt, &env)
	return finalStatuses[env.Status]
}
