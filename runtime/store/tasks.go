package store

// Tasks: to be filled when the schema moves into the store (#11).
type Tasks interface{}
