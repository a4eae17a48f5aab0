package usageapi

import (
	"context"
	"net/http"
	"time"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// Path is where the usage is served.
const Path = "/usage"

// Options configure the route.
type Options struct {
	// Store holds the counters.
	Store Store
	// IsOwner says who may read anyone's usage, and everyone's.
	IsOwner func(user string) bool
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// Store is the part of the store the route reads.
type Store interface {
	ReadUsage(ctx context.Context, q store.UsageQuery) ([]store.UsageDay, error)
}

// Endpoints are the /agent entries of the route.
func Endpoints() map[string]string { return map[string]string{"usage": Path} }

// Register mounts GET /usage on mux.
func Register(mux *http.ServeMux, o Options) {
	if o.IsOwner == nil {
		o.IsOwner = func(string) bool { return false }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	h := &handler{o: o}
	mux.HandleFunc("GET "+Path, h.usage)
}

type handler struct{ o Options }

func (h *handler) usage(w http.ResponseWriter, r *http.Request) {
	q, err := readQuery(r, h.o.Now())
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	caller := auth.From(r.Context()).UserID
	scope := store.UsageQuery{Everyone: q.all}
	if q.all && !h.o.IsOwner(caller) {
		fail(w, http.StatusNotFound, "not_found", "Only the agent's owners may read everyone's usage")
		return
	}
	if !q.all {
		var ok bool
		if scope.User, ok = httpapi.ActingUser(w, r, caller, h.o.IsOwner); !ok { // ?user=: the owners' only
			return
		}
	}
	scope.Days = q.pageDays()
	days, err := h.o.Store.ReadUsage(r.Context(), scope)
	if err != nil {
		httpapi.WriteError(httpapi.NoStore(w), runtime.Errorf(runtime.ErrUnavailable, runtime.CodeStoreUnavailable, "The state store is unavailable; retry shortly"))
		return
	}
	writeJSON(w, http.StatusOK, pageOf(q, scope, days))
}

// writeJSON is httpapi.WriteJSON with Cache-Control: no-store: usage is
// private and changes with every turn.
func writeJSON(w http.ResponseWriter, status int, v any) {
	httpapi.WriteJSON(httpapi.NoStore(w), status, v)
}

// fail is httpapi.Fail with Cache-Control: no-store.
func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(httpapi.NoStore(w), status, code, detail)
}
