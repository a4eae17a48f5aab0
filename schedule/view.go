package schedule

import (
	"encoding/json"
	"time"

	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/store"
)

// View is a schedule as the routes answer it.
type View struct {
	ID         string           `json:"id"`
	UserID     string           `json:"userId"`
	Cron       string           `json:"cron,omitempty"`
	TimeZone   string           `json:"timeZone,omitempty"`
	At         *time.Time       `json:"at,omitempty"`
	Input      json.RawMessage  `json:"input"`     // text (a JSON string) or a typed input's object
	SessionID  *string          `json:"sessionId"` // null: a new session per fire
	OnBusy     string           `json:"onBusy,omitempty"`
	Webhook    *runtime.Webhook `json:"webhook,omitempty"`
	Paused     bool             `json:"paused"`
	NextFireAt *time.Time       `json:"nextFireAt"` // null: never again
	Fires      int64            `json:"fires"`
	CreatedAt  time.Time        `json:"createdAt"`
	UpdatedAt  time.Time        `json:"updatedAt"`
}

// storedView is the view of a stored schedule, its definition decoded
// from the record (a record that does not decode shows its record's
// members only).
func storedView(rec store.ScheduleRecord) View {
	d, _, _ := decodeDefinition(rec.JSON)
	return viewOf(rec, d)
}

func viewOf(rec store.ScheduleRecord, d Definition) View {
	v := View{ID: rec.ID, UserID: rec.User, Cron: d.Cron, TimeZone: d.TimeZone, Input: d.inputView(), OnBusy: d.OnBusy,
		Webhook: d.Webhook, Paused: rec.Paused, Fires: rec.Fires, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
	if d.Cron != "" && v.TimeZone == "" {
		v.TimeZone = "UTC"
	}
	if !d.At.IsZero() {
		at := d.At
		v.At = &at
	}
	if d.SessionID != "" {
		id := d.SessionID
		v.SessionID = &id
	}
	if !rec.NextFire.IsZero() {
		next := rec.NextFire.UTC()
		v.NextFireAt = &next
	}
	return v
}

// FireView is one fire as GET /schedules/{id}/fires answers it.
type FireView struct {
	Seq        int64     `json:"seq"`
	At         time.Time `json:"at"`
	Manual     bool      `json:"manual"`
	SessionID  string    `json:"sessionId"`
	ResponseID string    `json:"responseId"`
	// Status: pending (claimed, not started yet), started, or failed
	// (Error says why it could not start).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Outcome is the final status of the fire's response (completed,
	// failed, cancelled, denied), in what Options.OnFire is told once the
	// response is over; empty in the history, where the receipt says it.
	Outcome string `json:"outcome,omitempty"`
}

func fireViewOf(f store.FireRecord) FireView {
	v := FireView{Seq: f.Seq, At: f.At.UTC(), Manual: f.Manual, SessionID: f.SessionID, ResponseID: f.ResponseID, Status: "pending"}
	switch {
	case f.Started && f.Failure != "":
		v.Status, v.Error = "failed", f.Failure
	case f.Started:
		v.Status = "started"
	}
	return v
}
