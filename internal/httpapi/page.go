package httpapi

import (
	"net/http"
	"strconv"
)

// PageLimit reads ?limit=, the size of a page: a whole number from 1 to
// max, max when absent. Anything else is 400 invalid_limit (no-store), and
// ok is false: the answer is written.
func PageLimit(w http.ResponseWriter, r *http.Request, max int) (limit int, ok bool) {
	q := r.URL.Query()
	if !q.Has("limit") {
		return max, true
	}
	n, err := strconv.Atoi(q.Get("limit"))
	if err != nil || n < 1 || n > max {
		Fail(NoStore(w), http.StatusBadRequest, "invalid_limit", "limit must be an integer from 1 to "+strconv.Itoa(max))
		return 0, false
	}
	return n, true
}

// PageParams reads a list's ?cursor= and ?limit= (PageLimit).
func PageParams(w http.ResponseWriter, r *http.Request, max int) (cursor string, limit int, ok bool) {
	limit, ok = PageLimit(w, r, max)
	return r.URL.Query().Get("cursor"), limit, ok
}

// CutPage is the page of recs, read with limit+1 to see whether more
// follow: up to limit of them, each as view shows it, and the cursor of
// the next page (the key of its last kept record) when more follow, else
// nil. The page is never nil: it encodes as [].
func CutPage[R, V any](recs []R, limit int, key func(R) string, view func(R) V) (page []V, next *string) {
	page = make([]V, 0, min(len(recs), limit))
	for i, rec := range recs {
		if i == limit {
			k := key(recs[i-1])
			return page, &k
		}
		page = append(page, view(rec))
	}
	return page, nil
}
