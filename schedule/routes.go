package schedule

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/harnest/harnest/internal/httpapi"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// The routes: a user's own schedules; an owner (Options.IsOwner) may name
// any user with ?user=. Someone else's schedule is 404, as anything a
// user does not own.
//
//	POST   /schedules                  create (201)
//	GET    /schedules                  list, ?cursor=&limit= (ID order)
//	GET    /schedules/{scheduleId}             read
//	PATCH  /schedules/{scheduleId}             change some members
//	DELETE /schedules/{scheduleId}             delete (204), with its history
//	POST   /schedules/{scheduleId}/pause       stop firing
//	POST   /schedules/{scheduleId}/resume      fire again, from the next time after now
//	POST   /schedules/{scheduleId}/run         fire now (202), whatever its timing
//	GET    /schedules/{scheduleId}/fires       history, newest first, ?cursor=&limit=

// Endpoints are the /agent entries of the routes.
func Endpoints() map[string]string {
	return map[string]string{"schedules": "/schedules", "scheduleFires": "/schedules/{scheduleId}/fires"}
}

// Register mounts the routes on mux.
func (s *Scheduler) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /schedules", s.asUser(s.handleCreate))
	mux.HandleFunc("GET /schedules", s.asUser(s.handleList))
	mux.HandleFunc("GET /schedules/{scheduleId}", s.asUser(s.handleGet))
	mux.HandleFunc("PATCH /schedules/{scheduleId}", s.asUser(s.handlePatch))
	mux.HandleFunc("DELETE /schedules/{scheduleId}", s.asUser(s.handleDelete))
	mux.HandleFunc("POST /schedules/{scheduleId}/pause", s.asUser(s.handlePause(true)))
	mux.HandleFunc("POST /schedules/{scheduleId}/resume", s.asUser(s.handlePause(false)))
	mux.HandleFunc("POST /schedules/{scheduleId}/run", s.asUser(s.handleRun))
	mux.HandleFunc("GET /schedules/{scheduleId}/fires", s.asUser(s.handleFires))
}

// asUser is h for the caller's schedules, or with ?user= an owner's
// choice (httpapi.AsUser).
func (s *Scheduler) asUser(h httpapi.UserHandler) http.HandlerFunc {
	return httpapi.AsUser(s.o.IsOwner, h)
}

func (s *Scheduler) handleCreate(w http.ResponseWriter, r *http.Request, user string) {
	f, ok := s.readFields(w, r)
	if !ok {
		return
	}
	v, err := s.create(r.Context(), user, f)
	answer(w, http.StatusCreated, v, err)
}

func (s *Scheduler) handleList(w http.ResponseWriter, r *http.Request, user string) {
	cursor, limit, ok := httpapi.PageParams(w, r, runtime.MaxPageSize)
	if !ok {
		return
	}
	recs, err := s.o.Store.ListSchedules(r.Context(), user, cursor, limit+1)
	if answerError(w, err) {
		return
	}
	page := struct {
		Schedules  []View  `json:"schedules"`
		NextCursor *string `json:"nextCursor"`
	}{}
	page.Schedules, page.NextCursor = httpapi.CutPage(recs, limit, func(rec store.ScheduleRecord) string { return rec.ID }, storedView)
	writeJSON(w, http.StatusOK, page)
}

func (s *Scheduler) handleGet(w http.ResponseWriter, r *http.Request, user string) {
	rec, d, err := s.get(r.Context(), user, r.PathValue("scheduleId"))
	if answerError(w, err) {
		return
	}
	writeJSON(w, http.StatusOK, viewOf(rec, d))
}

func (s *Scheduler) handlePatch(w http.ResponseWriter, r *http.Request, user string) {
	f, ok := s.readFields(w, r)
	if !ok {
		return
	}
	v, err := s.patch(r.Context(), user, r.PathValue("scheduleId"), f)
	answer(w, http.StatusOK, v, err)
}

func (s *Scheduler) handlePause(paused bool) httpapi.UserHandler {
	return func(w http.ResponseWriter, r *http.Request, user string) {
		v, err := s.patch(r.Context(), user, r.PathValue("scheduleId"), fields{Paused: &paused})
		answer(w, http.StatusOK, v, err)
	}
}

func (s *Scheduler) handleDelete(w http.ResponseWriter, r *http.Request, user string) {
	found, err := s.o.Store.DeleteSchedule(r.Context(), user, r.PathValue("scheduleId"))
	if !found && err == nil {
		err = errNotFound
	}
	if answerError(w, err) {
		return
	}
	httpapi.NoStore(w).WriteHeader(http.StatusNoContent)
}

func (s *Scheduler) handleRun(w http.ResponseWriter, r *http.Request, user string) {
	fv, err := s.runNow(r.Context(), user, r.PathValue("scheduleId"))
	answer(w, http.StatusAccepted, fv, err)
}

func (s *Scheduler) handleFires(w http.ResponseWriter, r *http.Request, user string) {
	cursor, limit, ok := httpapi.PageParams(w, r, runtime.MaxPageSize)
	if !ok {
		return
	}
	before := int64(0)
	if cursor != "" {
		n, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || n < 1 {
			fail(w, http.StatusBadRequest, "invalid_cursor", "cursor must be the nextCursor of the previous page")
			return
		}
		before = n
	}
	if _, _, err := s.get(r.Context(), user, r.PathValue("scheduleId")); answerError(w, err) {
		return
	}
	fires, err := s.o.Store.ListFires(r.Context(), user, r.PathValue("scheduleId"), before, limit)
	if answerError(w, err) {
		return
	}
	page := struct {
		Fires      []FireView `json:"fires"`
		NextCursor *string    `json:"nextCursor"`
	}{Fires: []FireView{}}
	for _, f := range fires {
		page.Fires = append(page.Fires, fireViewOf(f))
	}
	if len(fires) == limit && fires[len(fires)-1].Seq > 1 {
		next := strconv.FormatInt(fires[len(fires)-1].Seq, 10)
		page.NextCursor = &next
	}
	writeJSON(w, http.StatusOK, page)
}

// readFields reads a bounded, strict body; a refusal names the field.
func (s *Scheduler) readFields(w http.ResponseWriter, r *http.Request) (fields, bool) {
	body, e := httpapi.ReadAtMost(w, r, int64(s.o.MaxBodyBytes))
	if e != nil {
		fail(w, e.Status, e.Code, e.Detail)
		return fields{}, false
	}
	f, err := decodeFields(body)
	if err != nil {
		answerError(w, err)
		return fields{}, false
	}
	return f, true
}

// answerError writes err, when there is one: a refused field 400 naming
// it, the bound 429, runtime errors by kind, anything else the store (503).
func answerError(w http.ResponseWriter, err error) bool {
	var fe fieldError
	var le limitError
	switch {
	case err == nil:
		return false
	case errors.As(err, &fe):
		fail(w, http.StatusBadRequest, "invalid_schedule", fe.Error())
	case errors.As(err, &le):
		fail(w, http.StatusTooManyRequests, "too_many_schedules", le.Error())
	case errors.Is(err, store.ErrScheduleExists):
		fail(w, http.StatusConflict, "schedule_exists", "A schedule with that ID exists")
	default:
		var re *runtime.Error
		if !errors.As(err, &re) {
			fail(w, http.StatusServiceUnavailable, "store_unavailable", "The state store is unavailable; retry shortly")
			return true
		}
		httpapi.WriteError(httpapi.NoStore(w), re) // runtime errors map once, in the HTTP kit
	}
	return true
}

// answer writes v with status, or err when there is one.
func answer(w http.ResponseWriter, status int, v any, err error) {
	if !answerError(w, err) {
		writeJSON(w, status, v)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	httpapi.WriteJSON(httpapi.NoStore(w), status, v)
}

func fail(w http.ResponseWriter, status int, code, detail string) {
	httpapi.Fail(httpapi.NoStore(w), status, code, detail)
}

func jsonOf(d Definition) ([]byte, error) { return json.Marshal(d) }
