package neutral

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/harnest/harnest/internal/auth"
	"github.com/harnest/harnest/runtime"
)

// RegisterAssets mounts the session asset routes on mux. GET also answers
// HEAD.
func (a *API) RegisterAssets(mux *http.ServeMux) {
	mux.HandleFunc("POST /sessions/{sessionId}/assets", a.uploadAsset)
	mux.HandleFunc("GET /sessions/{sessionId}/assets/{assetId}", a.readAsset)
	mux.HandleFunc("DELETE /sessions/{sessionId}/assets/{assetId}", a.deleteAsset)
}

// assetChunk is how much of an asset one store read fetches while
// streaming it.
const assetChunk = 1 << 20

// uploadAsset stores the raw body as an asset of the session. The body is
// bounded by the smaller of the asset limit and the server's request limit.
func (a *API) uploadAsset(w http.ResponseWriter, r *http.Request) {
	limit := min(runtime.MaxAssetBytes, int64(a.maxBody))
	info, err := a.svc.UploadAsset(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"),
		r.Header.Get("Content-Type"), r.Body, limit)
	writeResult(w, http.StatusCreated, info, err)
}

// readAsset answers GET (the content, or one byte range of it) and HEAD
// (the same headers, no body).
func (a *API) readAsset(w http.ResponseWriter, r *http.Request) {
	ctx, p := r.Context(), auth.From(r.Context())
	sid, id := r.PathValue("sessionId"), r.PathValue("assetId")
	info, err := a.svc.AssetInfo(ctx, p, sid, id)
	if err != nil {
		writeError(w, err)
		return
	}
	size := info.SizeBytes
	start, end, status := int64(0), size-1, http.StatusOK
	if ranges := r.Header.Values("Range"); len(ranges) > 0 {
		var ok bool
		if start, end, ok = parseAssetRange(ranges, size); !ok {
			w.Header().Set("Content-Range", "bytes */"+strconv.FormatInt(size, 10))
			fail(w, http.StatusRequestedRangeNotSatisfiable, "invalid_range", "Invalid asset range")
			return
		}
		status = http.StatusPartialContent
	}
	// The first chunk is read before any header is written, so that an
	// asset deleted meanwhile still gets a clean 404.
	var first []byte
	if r.Method != http.MethodHead && end >= start {
		first, _, err = a.svc.ReadAsset(ctx, p, sid, id, start, min(assetChunk, end-start+1))
		if err != nil {
			writeError(w, err)
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", info.MediaType)
	h.Set("Content-Length", strconv.FormatInt(end-start+1, 10))
	h.Set("Accept-Ranges", "bytes")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusPartialContent {
		h.Set("Content-Range", "bytes "+strconv.FormatInt(start, 10)+"-"+strconv.FormatInt(end, 10)+"/"+strconv.FormatInt(size, 10))
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	if _, err := w.Write(first); err != nil {
		return
	}
	for off := start + int64(len(first)); off <= end; {
		chunk, _, err := a.svc.ReadAsset(ctx, p, sid, id, off, min(assetChunk, end-off+1))
		if err != nil || len(chunk) == 0 {
			return // the body falls short of Content-Length: the client sees the failure
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		off += int64(len(chunk))
	}
}

// parseAssetRange accepts exactly one "bytes=a-b" or "bytes=a-" range whose
// start is within the asset; an end past the asset is cut to its last
// byte. Suffix ranges, several ranges and other units are refused.
func parseAssetRange(headers []string, size int64) (start, end int64, ok bool) {
	if len(headers) != 1 {
		return 0, 0, false
	}
	unit, spec, found := strings.Cut(headers[0], "=")
	if !found || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return 0, 0, false
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	if !found || first == "" {
		return 0, 0, false
	}
	start, ok = parseDigits(first)
	if !ok || start >= size {
		return 0, 0, false
	}
	end = size - 1
	if last != "" {
		n, ok := parseDigits(last)
		if !ok || n < start {
			return 0, 0, false
		}
		end = min(n, size-1)
	}
	return start, end, true
}

// parseDigits parses a non-negative decimal number of digits only (no sign,
// no spaces: strconv alone would take "+5").
func parseDigits(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func (a *API) deleteAsset(w http.ResponseWriter, r *http.Request) {
	err := a.svc.DeleteAsset(r.Context(), auth.From(r.Context()), r.PathValue("sessionId"), r.PathValue("assetId"))
	if err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
