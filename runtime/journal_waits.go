package runtime

import (
	"bytes"
	"strconv"
)

// A resume point carries the number of waits (approvals, client tools) the
// turn had asked for when it was recorded. Wait IDs count the response's
// waits (waitID), and a resumed attempt does not ask again for the waits
// before its resume point (a recalled tool result skips its approval, a
// worker goes on from its checkpoint): without the count, its next wait
// would get the ID of the lost attempt's first wait and be answered with
// that wait's answer. restore sets the count back to the highest recorded.
//
// The count is a prefix of the stored data, "w<count>\n"; a point stored
// without it (before the prefix existed) counts no waits.

// withWaits prefixes data with the count of waits asked so far.
func withWaits(waits int, data []byte) []byte {
	out := make([]byte, 0, len(data)+8)
	out = append(out, 'w')
	out = strconv.AppendInt(out, int64(waits), 10)
	out = append(out, '\n')
	return append(out, data...)
}

// splitWaits takes the count of waits off a stored point.
func splitWaits(stored []byte) (waits int, data []byte) {
	if len(stored) < 3 || stored[0] != 'w' {
		return 0, stored
	}
	nl := bytes.IndexByte(stored, '\n')
	if nl < 2 {
		return 0, stored
	}
	n, err := strconv.Atoi(string(stored[1:nl]))
	if err != nil || n < 0 {
		return 0, stored
	}
	return n, stored[nl+1:]
}

// recalledPoints strips the counts off the stored points and returns the
// highest, the waits the turn had asked for at its last resume point.
func recalledPoints(stored map[string][]byte) (map[string][]byte, int) {
	if len(stored) == 0 {
		return stored, 0
	}
	points := make(map[string][]byte, len(stored))
	most := 0
	for key, b := range stored {
		n, data := splitWaits(b)
		points[key] = data
		most = max(most, n)
	}
	return points, most
}
