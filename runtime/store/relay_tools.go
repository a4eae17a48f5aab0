package store

// RelayTools keeps what tools at home need: participants' callback tokens,
// the owner's tool grants and the receipts of tool calls.
type RelayTools interface {
}
