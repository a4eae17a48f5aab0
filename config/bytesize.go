package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/harnest/harnest/internal/bytesize"
)

// Size units.
const (
	KiB ByteSize = 1 << 10
	MiB ByteSize = 1 << 20
	GiB ByteSize = 1 << 30
)

var byteSizePattern = regexp.MustCompile(`^[1-9][0-9]*(B|KiB|MiB|GiB)?$`)

// errByteSizeSyntax is returned for a size that is neither an integer nor
// "<n>B|KiB|MiB|GiB".
var errByteSizeSyntax = errors.New(`expected a positive integer or a size such as "1MiB" (units B, KiB, MiB, GiB)`)

// ParseByteSize parses a positive size written as an integer number of bytes
// or as "<n>B", "<n>KiB", "<n>MiB" or "<n>GiB". Its errors never contain s, so
// they are safe to print for values that came from the environment.
func ParseByteSize(s string) (ByteSize, error) {
	if !byteSizePattern.MatchString(s) {
		return 0, errByteSizeSyntax
	}
	unit := ByteSize(1)
	digits := s
	for _, u := range []struct {
		suffix string
		size   ByteSize
	}{{"KiB", KiB}, {"MiB", MiB}, {"GiB", GiB}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			digits, unit = strings.TrimSuffix(s, u.suffix), u.size
			break
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/int64(unit) {
		return 0, errors.New("size is too large")
	}
	return ByteSize(n) * unit, nil
}

// String formats the size with the largest unit that divides it evenly:
// 1048576 is "1MiB", 1536 is "1536B".
func (b ByteSize) String() string { return bytesize.Format(int64(b)) }

// UnmarshalYAML accepts a positive integer or a size string such as "1MiB".
func (b *ByteSize) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind != yaml.ScalarNode {
		return errByteSizeSyntax
	}
	switch node.ShortTag() {
	case "!!int":
		var n int64
		if err := node.Decode(&n); err != nil {
			return errors.New("size is too large")
		}
		if n <= 0 {
			return fmt.Errorf("%s, got %d", errByteSizeSyntax, n)
		}
		*b = ByteSize(n)
		return nil
	case "!!str":
		size, err := ParseByteSize(node.Value)
		if errors.Is(err, errByteSizeSyntax) {
			return fmt.Errorf("%s, got %q", err, shorten(node.Value))
		}
		if err != nil {
			return err
		}
		*b = size
		return nil
	default:
		return fmt.Errorf("%s, got %s", errByteSizeSyntax, shorten(node.Value))
	}
}

// MarshalYAML writes the size as String does.
func (b ByteSize) MarshalYAML() (any, error) {
	return b.String(), nil
}
