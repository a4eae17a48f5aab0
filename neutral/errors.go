package neutral

import (
	"net/http"

	"github.com/harnest/harnest/internal/httpapi"
)

// The neutral API's errors are httpapi's: {"detail", "code"} with the one
// mapping of runtime error kinds to statuses.

func writeError(w http.ResponseWriter, err error) { httpapi.WriteError(w, err) }

func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(w, status, code, detail)
}

func writeJSON(w http.ResponseWriter, status int, v any) { httpapi.WriteJSON(w, status, v) }

func writeRaw(w http.ResponseWriter, status int, body []byte) { httpapi.WriteRaw(w, status, body) }
