package runtime

import "github.com/harnest/harnest/internal/bytesize"

// FormatBytes writes a byte count as GiB, MiB or KiB when it divides evenly,
// else as "<n>B": 1048576 is "1MiB".
func FormatBytes(n int64) string { return bytesize.Format(n) }
