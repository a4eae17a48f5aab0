package memoryapi

import (
	"errors"
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/internal/memory"
	"github.com/harnest/harnest/store"
)

// Options build the routes.
type Options struct {
	Memory *memory.Service
	// IsOwner reports whether a user is one of the agent's owners.
	IsOwner func(user string) bool
	// MaxBodyBytes bounds a request body.
	MaxBodyBytes int64
}

// maxPage is the largest and default page of a list.
const maxPage = 100

// Endpoints are the /agent entries of the routes.
func Endpoints() map[string]string {
	return map[string]string{"memory": "/memory/{namespace}", "memorySearch": "/memory/search"}
}

// Register mounts the routes on mux.
func Register(mux *http.ServeMux, o Options) {
	h := &handler{o: o}
	// Each route reaches the caller's memory, or with ?user= an owner's
	// choice (httpapi.AsUser).
	asUser := func(u httpapi.UserHandler) http.HandlerFunc { return httpapi.AsUser(o.IsOwner, u) }
	mux.HandleFunc("PUT /memory/{namespace}/{key}", asUser(h.put))
	mux.HandleFunc("GET /memory/{namespace}/{key}", asUser(h.get))
	mux.HandleFunc("DELETE /memory/{namespace}/{key}", asUser(h.delete))
	mux.HandleFunc("GET /memory/{namespace}", asUser(h.list))
	mux.HandleFunc("POST /memory/search", asUser(h.search))
}

type handler struct{ o Options }

// Item is an item as the routes show it: the item's members as
// store.MemoryItem defines their JSON (namespace, key, value, text,
// createdAt, updatedAt, expiresAt when it expires; never its scope or
// embedding), and a search hit's score.
type Item struct {
	store.MemoryItem
	Score *float64 `json:"score,omitempty"`
}

func itemOf(it store.MemoryItem) Item { return Item{MemoryItem: it} }

func (h *handler) put(w http.ResponseWriter, r *http.Request, user string) {
	p, ok := readBody(w, r, h.o.MaxBodyBytes, decodePut)
	if !ok {
		return
	}
	p.Namespace, p.Key = r.PathValue("namespace"), r.PathValue("key")
	it, err := h.o.Memory.Put(r.Context(), user, p)
	if answerError(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, itemOf(it))
}

func (h *handler) get(w http.ResponseWriter, r *http.Request, user string) {
	it, found, err := h.o.Memory.Get(r.Context(), user, r.PathValue("namespace"), r.PathValue("key"))
	if answerError(w, err) {
		return
	}
	if !found {
		fail(w, http.StatusNotFound, "memory_not_found", "No memory item with that namespace and key")
		return
	}
	writeJSON(w, http.StatusOK, itemOf(it))
}

func (h *handler) delete(w http.ResponseWriter, r *http.Request, user string) {
	found, err := h.o.Memory.Delete(r.Context(), user, r.PathValue("namespace"), r.PathValue("key"))
	if answerError(w, err) {
		return
	}
	if !found {
		fail(w, http.StatusNotFound, "memory_not_found", "No memory item with that namespace and key")
		return
	}
	httpapi.NoStore(w).WriteHeader(http.StatusNoContent)
}

func (h *handler) list(w http.ResponseWriter, r *http.Request, user string) {
	limit, ok := httpapi.PageLimit(w, r, maxPage)
	if !ok {
		return
	}
	items, err := h.o.Memory.List(r.Context(), user, r.PathValue("namespace"), r.URL.Query().Get("cursor"), limit+1)
	if answerError(w, err) {
		return
	}
	page := struct {
		Items      []Item  `json:"items"`
		NextCursor *string `json:"nextCursor"`
	}{}
	page.Items, page.NextCursor = httpapi.CutPage(items, limit, func(it store.MemoryItem) string { return it.Key }, itemOf)
	writeJSON(w, http.StatusOK, page)
}

func (h *handler) search(w http.ResponseWriter, r *http.Request, user string) {
	s, ok := readBody(w, r, h.o.MaxBodyBytes, decodeSearch)
	if !ok {
		return
	}
	hits, err := h.o.Memory.Search(r.Context(), user, s)
	if answerError(w, err) {
		return
	}
	out := struct {
		Items  []Item `json:"items"`
		Search string `json:"search"`
	}{Items: []Item{}, Search: "keyword"}
	if h.o.Memory.Semantic() {
		out.Search = "semantic"
	}
	for _, hit := range hits {
		v := itemOf(hit.Item)
		score := hit.Score
		v.Score = &score
		out.Items = append(out.Items, v)
	}
	writeJSON(w, http.StatusOK, out)
}

// readBody reads a bounded UTF-8 body and decodes it; ok is false when
// the refusal was written (a refused field names it).
func readBody[T any](w http.ResponseWriter, r *http.Request, limit int64, decode func([]byte) (T, error)) (v T, ok bool) {
	body, e := httpapi.ReadUTF8(w, r, limit)
	if e != nil {
		fail(w, e.Status, e.Code, e.Detail)
		return v, false
	}
	v, err := decode(body)
	return v, !answerError(w, err)
}

// answerError writes err, when there is one: a refused field 400 naming
// it, the embeddings endpoint 502, anything else the store (503).
func answerError(w http.ResponseWriter, err error) bool {
	var fe *memory.FieldError
	switch {
	case err == nil:
		return false
	case errors.As(err, &fe):
		fail(w, http.StatusBadRequest, "invalid_"+codeOf(fe.Field), fe.Error())
	case errors.Is(err, memory.ErrEmbeddings):
		fail(w, http.StatusBadGateway, "embeddings_unavailable", "The embeddings endpoint did not answer as it should; retry shortly")
	default:
		fail(w, http.StatusServiceUnavailable, "store_unavailable", "The state store is unavailable; retry shortly")
	}
	return true
}

// codeOf turns a field name into its code's suffix: ttlSeconds → ttl_seconds.
func codeOf(field string) string {
	var b []byte
	for i := 0; i < len(field); i++ {
		c := field[i]
		if c >= 'A' && c <= 'Z' {
			b = append(b, '_', c+'a'-'A')
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	httpapi.WriteJSON(httpapi.NoStore(w), status, v)
}

func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(httpapi.NoStore(w), status, code, detail)
}
