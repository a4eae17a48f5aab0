package httplog

import (
	"context"
	"log/slog"
	"strconv"
	"time"
)

// line is one request's log line: its values, in the order it writes
// them. Middleware writes it through slog (log) or, when the logger is
// harnest's own Handler, formats it itself (appendText, appendJSON): the
// same bytes slog's text and JSON handlers write for it.
type line struct {
	at       time.Time // when the request ended: the record's time
	method   string
	path     string
	status   int
	duration time.Duration
	bytes    int64
	id       string
	grpc     *GRPCCall // nil for a request that was not a gRPC call
}

// log writes l through log's handler as a normal slog record.
func (l *line) log(ctx context.Context, log *slog.Logger) {
	attrs := [9]slog.Attr{
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.Int("status", l.status),
		slog.Duration("duration", l.duration),
		slog.Int64("bytes", l.bytes),
		slog.String("requestId", l.id),
	}
	n := 6
	if c := l.grpc; c != nil {
		attrs[6] = slog.String("grpcMethod", c.Method)
		attrs[7] = slog.String("grpcCode", c.Code)
		attrs[8] = slog.String("user", c.User)
		n = 9
	}
	log.LogAttrs(ctx, slog.LevelInfo, "request", attrs[:n]...)
}

// plain reports whether every string of l is written as is by both of
// slog's handlers, neither quoted (text) nor escaped (JSON). Paths and
// methods almost always are; a line with one that is not goes through
// slog, which knows every rule.
func (l *line) plain() bool {
	ok := plain(l.method) && plain(l.path) && plain(l.id)
	if c := l.grpc; c != nil {
		ok = ok && plain(c.Method) && plain(c.Code) && plain(c.User)
	}
	return ok
}

// plain reports whether s is not empty (slog's text handler quotes "") and
// only of printable ASCII other than space, '=' (which the text handler
// quotes), '"' and '\\' (which the JSON handler escapes).
func plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' || c == '"' || c == '\\' || c == '=' {
			return false
		}
	}
	return true
}

// appendText appends l as slog's text handler writes it (default
// options): key=value pairs, the time in milliseconds, the duration as
// time.Duration.String. ok is false when the time cannot be written so.
func (l *line) appendText(b []byte) (_ []byte, ok bool) {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, l.at.Round(0))
	b = append(b, " level=INFO msg=request method="...)
	b = append(b, l.method...)
	b = append(b, " path="...)
	b = append(b, l.path...)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, " duration="...)
	b = append(b, l.duration.String()...) // no allocation: the string does not escape
	b = append(b, " bytes="...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, " requestId="...)
	b = append(b, l.id...)
	if c := l.grpc; c != nil {
		b = append(b, " grpcMethod="...)
		b = append(b, c.Method...)
		b = append(b, " grpcCode="...)
		b = append(b, c.Code...)
		b = append(b, " user="...)
		b = append(b, c.User...)
	}
	return append(b, '\n'), true
}

// appendJSON appends l as slog's JSON handler writes it (default
// options): one object, the time in RFC 3339 with nanoseconds, the
// duration in nanoseconds. ok is false for a time whose year RFC 3339
// cannot write (slog adds an error to the line then).
func (l *line) appendJSON(b []byte) (_ []byte, ok bool) {
	at := l.at.Round(0)
	if y := at.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, `{"time":"`...)
	b = at.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","method":"`...)
	b = append(b, l.method...)
	b = append(b, `","path":"`...)
	b = append(b, l.path...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(l.duration), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, `,"requestId":"`...)
	b = append(b, l.id...)
	b = append(b, '"')
	if c := l.grpc; c != nil {
		b = append(b, `,"grpcMethod":"`...)
		b = append(b, c.Method...)
		b = append(b, `","grpcCode":"`...)
		b = append(b, c.Code...)
		b = append(b, `","user":"`...)
		b = append(b, c.User...)
		b = append(b, '"')
	}
	return append(b, "}\n"...), true
}

// appendRFC3339Millis appends t as slog's text handler writes a record's
// time: RFC 3339 with exactly three digits of milliseconds (cut, not
// rounded), as in 2026-12-01T18:21:03.245Z.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano drops trailing zeros: a tenth of a millisecond more
	// makes four fraction digits, of which the fourth is cut.
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}
