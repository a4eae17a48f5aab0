// Package numlist reads the lists of increasing positive counts that the
// benchmark's programs take as flags ("-at 10000,20000", "-turn-at
// 10,100,1000").
package numlist

import (
	"fmt"
	"strconv"
	"strings"
)

// Increasing reads fields (a flag's value split at its commas) as
// positive integers, each larger than the one before; noun names them in
// an error ("sizes must increase: 10 after 100"). A field may have spaces
// around its number; an empty field is not a number.
func Increasing(fields []string, noun string) ([]int, error) {
	var out []int
	for _, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%s must increase: %d after %d", noun, n, out[len(out)-1])
		}
		out = append(out, n)
	}
	return out, nil
}
