package openaiapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// itemsQuery is the paging of GET /v1/responses/{id}/input_items.
type itemsQuery struct {
	limit int
	asc   bool
	after string
}

// parseItemsQuery reads limit, order and after; ok is false (with the
// failure to answer) for a value out of range.
func parseItemsQuery(r *http.Request) (itemsQuery, failure, bool) {
	v := r.URL.Query()
	q := itemsQuery{limit: 20, after: v.Get("after")}
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return q, invalid("limit", "invalid_value", "limit must be an integer from 1 to 100"), false
		}
		q.limit = n
	}
	switch v.Get("order") {
	case "", "desc":
	case "asc":
		q.asc = true
	default:
		return q, invalid("order", "invalid_value", `order must be "asc" or "desc" (the default: newest first)`), false
	}
	return q, failure{}, true
}

// page is the list of the items (oldest first) the query asks for.
func (q itemsQuery) page(items []json.RawMessage) inputItemList {
	ordered := slices.Clone(items)
	if !q.asc {
		slices.Reverse(ordered)
	}
	if q.after != "" { // the items after it (none when no item has that ID)
		i := slices.IndexFunc(ordered, func(it json.RawMessage) bool { return itemIDOf(it) == q.after })
		ordered = ordered[i+1:]
		if i < 0 {
			ordered = nil
		}
	}
	list := inputItemList{Object: "list", Data: []json.RawMessage{}}
	if len(ordered) > q.limit {
		ordered, list.HasMore = ordered[:q.limit], true
	}
	list.Data = append(list.Data, ordered...)
	if n := len(ordered); n > 0 {
		first, last := itemIDOf(ordered[0]), itemIDOf(ordered[n-1])
		list.FirstID, list.LastID = &first, &last
	}
	return list
}

func itemIDOf(item json.RawMessage) string {
	var it struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(item, &it)
	return it.ID
}
