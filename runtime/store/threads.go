package store

// Threads: to be filled when the schema moves into the store (#11).
type Threads interface{}
