package relay

import "sync/atomic"

// openPolls counts the inbox long polls that wait now, in this process
// (every Relay of it): metrics read it.
var openPolls atomic.Int64

// OpenPolls is how many outside agents' inbox long polls wait now in this
// process.
func OpenPolls() int { return int(openPolls.Load()) }
