// Package bytesize formats byte counts the way harnest writes them in
// config and in error messages: 1048576 is "1MiB", 1500 is "1500B".
package bytesize

import "strconv"

// Format writes n as GiB, MiB or KiB when it divides evenly, else as "<n>B".
func Format(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
