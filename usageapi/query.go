package usageapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/harnest/harnest/store"
)

// Bounds of a query.
const (
	defaultDays  = 30  // from defaults to 29 days before to
	defaultLimit = 31  // days a page
	maxLimit     = 100 // days a page at most
)

// maxSpan is how far back from and cursor may go: the counters are kept
// store.UsageRetention.
var maxSpan = int(store.UsageRetention / (24 * time.Hour))

// query is a GET /usage request: whose usage, which days, which page.
type query struct {
	user     string // ?user=: "" for the caller
	all      bool   // ?all=true: everyone's
	from, to time.Time
	cursor   time.Time // the page's newest day (to on the first page)
	limit    int
}

// readQuery reads and checks the parameters; an error names the one that
// is wrong.
func readQuery(r *http.Request, now time.Time) (query, error) {
	v := r.URL.Query()
	today := day(now)
	q := query{user: v.Get("user"), to: today, limit: defaultLimit}
	if v.Has("user") && q.user == "" {
		return q, errors.New("user must name a user")
	}
	if v.Has("all") {
		all, err := strconv.ParseBool(v.Get("all"))
		if err != nil {
			return q, errors.New("all must be true or false")
		}
		q.all = all
	}
	if q.all && q.user != "" {
		return q, errors.New("all and user cannot be given together: everyone's usage is not one user's")
	}
	var err error
	if q.to, err = readDate(v.Get("to"), "to", today); err != nil {
		return q, err
	}
	if q.from, err = readDate(v.Get("from"), "from", q.to.AddDate(0, 0, 1-defaultDays)); err != nil {
		return q, err
	}
	oldest := today.AddDate(0, 0, -maxSpan)
	switch {
	case q.from.After(q.to):
		return q, errors.New("from must not be after to")
	case q.from.Before(oldest):
		return q, fmt.Errorf("from must be %s or later: usage is kept %d days", oldest.Format(time.DateOnly), maxSpan)
	}
	if q.cursor, err = readDate(v.Get("cursor"), "cursor", q.to); err != nil {
		return q, err
	}
	if q.cursor.Before(q.from) || q.cursor.After(q.to) {
		return q, errors.New("cursor must be a nextCursor of a page of the same from and to")
	}
	if v.Has("limit") {
		n, err := strconv.Atoi(v.Get("limit"))
		if err != nil || n < 1 || n > maxLimit {
			return q, fmt.Errorf("limit must be an integer from 1 to %d (days a page)", maxLimit)
		}
		q.limit = n
	}
	return q, nil
}

// readDate reads a YYYY-MM-DD date parameter; "" is def.
func readDate(s, name string, def time.Time) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return t, fmt.Errorf("%s must be a date as YYYY-MM-DD (UTC), such as %s", name, def.Format(time.DateOnly))
	}
	return t, nil
}

// day is the UTC day that holds t, at midnight.
func day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// pageDays are the page's days, newest first: limit days from the
// cursor back, not before from.
func (q query) pageDays() []string {
	var days []string
	for d := q.cursor; !d.Before(q.from) && len(days) < q.limit; d = d.AddDate(0, 0, -1) {
		days = append(days, d.Format(time.DateOnly))
	}
	return days
}

// next is the next page's cursor; "" after the last page.
func (q query) next() string {
	d := q.cursor.AddDate(0, 0, -q.limit)
	if d.Before(q.from) {
		return ""
	}
	return d.Format(time.DateOnly)
}
