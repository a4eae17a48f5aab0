// Package jsonwrite writes JSON by appending to a byte slice, field by
// field, instead of through encoding/json's reflection: the hot paths'
// encoder (the runtime's events, envelopes, receipts and transcript
// messages; A2A's direct replies). What it writes is byte for byte what
// encoding/json writes for the same values: HTML characters escaped,
// invalid UTF-8 replaced by U+FFFD, raw JSON compacted and checked. The
// tests compare the two. Compact is the one compaction of JSON text that
// the doors and the runtime store and send again.
package jsonwrite
