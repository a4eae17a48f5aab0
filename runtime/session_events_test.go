package runtime

import "testing"

// A session stream cursor is "<response>.<sequence>": it round-trips,
// orders by response then sequence, and refuses anything else.
func TestSessionCursor(t *testing.T) {
	for _, c := range []SessionCursor{{1, -1}, {1, 0}, {3, 12}, {1 << 40, 7}} {
		got, ok := ParseSessionCursor(c.String())
		if !ok || got != c {
			t.Errorf("ParseSessionCursor(%q) = %v, %v", c.String(), got, ok)
		}
	}
	for _, bad := range []string{"", "3", "3.", ".3", "0.1", "-1.0", "1.-2", "1.2.3", "a.1", "1.b", "1 .2", "+1.2"} {
		if c, ok := ParseSessionCursor(bad); ok {
			t.Errorf("ParseSessionCursor(%q) = %v, want refused", bad, c)
		}
	}
	ordered := []SessionCursor{{1, -1}, {1, 0}, {1, 9}, {2, -1}, {2, 0}, {10, 3}}
	for i := range ordered {
		for j := range ordered {
			if got := ordered[i].After(ordered[j]); got != (i > j) {
				t.Errorf("%v.After(%v) = %v", ordered[i], ordered[j], got)
			}
		}
	}
}
