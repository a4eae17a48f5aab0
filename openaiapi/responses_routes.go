package openaiapi

import (
	"net/http"
	"strings"

	"github.com/harnest/harnest/runtime"
)

// routeResponses routes /v1/responses and /v1/responses/{id}[/cancel|
// /input_items].
func (d *door) routeResponses(w http.ResponseWriter, r *http.Request, p runtime.Principal) {
	rest := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/v1/responses"), "/")
	id, action, _ := strings.Cut(rest, "/")
	switch {
	case rest == "":
		if allow(w, r, http.MethodPost) {
			d.createResponse(w, r, p)
		}
	case action == "":
		if allow(w, r, http.MethodGet) {
			d.getResponse(w, r, p, id)
		}
	case action == "cancel":
		if allow(w, r, http.MethodPost) {
			d.cancelResponse(w, r, p, id)
		}
	case action == "input_items":
		if allow(w, r, http.MethodGet) {
			d.inputItems(w, r, p, id)
		}
	default:
		writeFailure(w, http.StatusNotFound, failure{Type: typeInvalidRequest, Code: "unknown_url",
			Message: "Unknown route " + r.Method + " " + r.URL.Path + ": this server offers " + d.routeList()})
	}
}
