package runtime

import "strconv"

// FormatBytes writes a byte count as GiB, MiB or KiB when it divides evenly,
// else as "<n>B": 1048576 is "1MiB".
func FormatBytes(n int64) string {
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
