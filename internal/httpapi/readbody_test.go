package httpapi

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadBody(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     io.Reader
		declared int64
		want     string
	}{
		{"declared", strings.NewReader(`{"input":"hello"}`), 17, `{"input":"hello"}`},
		{"shorter than declared", strings.NewReader(`{}`), 10, `{}`},
		{"longer than declared", strings.NewReader(`{"a":"bcdef"}`), 3, `{"a":"bcdef"}`},
		{"undeclared", strings.NewReader(`{"x":1}`), -1, `{"x":1}`},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader(`{"y":2}`)), 7, `{"y":2}`},
	} {
		got, err := readBody(tc.body, tc.declared)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
	boom := errors.New("boom")
	if _, err := readBody(iotest.ErrReader(boom), 5); !errors.Is(err, boom) {
		t.Errorf("a failing body: %v, want its error", err)
	}
}
