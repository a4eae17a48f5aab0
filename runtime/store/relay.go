package store

// Relay: to be filled when the schema moves into the store (#11).
type Relay interface{}
