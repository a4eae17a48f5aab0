package httpapi

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
		got, err := readBody(tc.body, tc.declared, 1<<10)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
	boom := errors.New("boom")
	if _, err := readBody(iotest.ErrReader(boom), 5, 1<<10); !errors.Is(err, boom) {
		t.Errorf("a failing body: %v, want its error", err)
	}
}

// resettable is a request body that can be read again.
type resettable struct{ strings.Reader }

func (*resettable) Close() error { return nil }

func TestReadAtMost(t *testing.T) {
	const limit = 16
	for _, tc := range []struct {
		name     string
		body     io.Reader
		declared int64
		status   int // 0: read
		tooLarge bool
	}{
		{"declared, within", strings.NewReader(`{"a":1}`), 7, 0, false},
		{"undeclared, within", strings.NewReader(`{"a":1}`), -1, 0, false},
		{"declared past the limit", strings.NewReader(`{}`), limit + 1, http.StatusRequestEntityTooLarge, true},
		{"undeclared past the limit", strings.NewReader(strings.Repeat("x", limit+1)), -1, http.StatusRequestEntityTooLarge, true},
		{"longer than declared, past the limit", strings.NewReader(strings.Repeat("x", limit+1)), 4, http.StatusRequestEntityTooLarge, true},
		{"unreadable", iotest.ErrReader(errors.New("boom")), 5, http.StatusBadRequest, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(tc.body))
		r.ContentLength = tc.declared
		body, e := ReadAtMost(httptest.NewRecorder(), r, limit)
		if tc.status == 0 {
			if e != nil || string(body) != `{"a":1}` {
				t.Errorf("%s: %q %v", tc.name, body, e)
			}
			continue
		}
		var mbe *http.MaxBytesError
		if e == nil || e.Status != tc.status || errors.As(e, &mbe) != tc.tooLarge {
			t.Errorf("%s: %v, want status %d (too large: %v)", tc.name, e, tc.status, tc.tooLarge)
		}
	}
}

// A body of known length costs one allocation, its buffer: no
// http.MaxBytesReader (A2A send and the neutral JSON turn read so).
func TestReadAtMostKnownLengthAllocations(t *testing.T) {
	body := &resettable{}
	r := httptest.NewRequest(http.MethodPost, "/", body)
	w := httptest.NewRecorder()
	allocs := testing.AllocsPerRun(100, func() {
		body.Reset(`{"input":"hello"}`)
		r.Body, r.ContentLength = body, 17
		if b, e := ReadAtMost(w, r, 1<<20); e != nil || len(b) != 17 {
			t.Fatalf("%q %v", b, e)
		}
	})
	if allocs != 1 {
		t.Errorf("%v allocations, want 1 (the buffer)", allocs)
	}
}
