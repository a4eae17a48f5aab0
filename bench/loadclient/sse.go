package main

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// readSSE reads an event stream to EOF. It calls onEvent when each event is
// dispatched (at the blank line ending it) and returns the number of events
// and the name of the last one ("message" when unnamed).
func readSSE(br *bufio.Reader, onEvent func()) (events int64, last string, err error) {
	name := ""
	pending := false // a field was seen since the last dispatch
	continued := false
	for {
		line, rerr := br.ReadSlice('\n')
		if rerr != nil && rerr != bufio.ErrBufferFull && rerr != io.EOF {
			return events, last, rerr
		}
		if !continued && len(line) > 0 {
			l := bytes.TrimRight(line, "\r\n")
			switch {
			case len(l) == 0:
				if pending {
					events++
					last = name
					if last == "" {
						last = "message"
					}
					onEvent()
				}
				name, pending = "", false
			case l[0] == ':': // comment
			case bytes.HasPrefix(l, []byte("event:")):
				name = strings.TrimSpace(string(l[len("event:"):]))
				pending = true
			default:
				pending = true
			}
		}
		continued = rerr == bufio.ErrBufferFull
		if rerr == io.EOF {
			return events, last, nil
		}
	}
}
