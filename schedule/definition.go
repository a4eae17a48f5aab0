package schedule

import (
	"encoding/json"
	"strings"
	"time"
	_ "time/tzdata" // time zones do not depend on the host's files

	"github.com/robfig/cron/v3"

	"github.com/harnest/harnest/runtime"
)

// Definition is what a schedule does and when, as the store keeps it (the
// JSON of store.ScheduleRecord) and the routes show it.
type Definition struct {
	// Cron is a cron expression: five fields (minute hour day-of-month
	// month day-of-week), six with a leading seconds field, or a
	// descriptor (@hourly, @daily, @every 90s ...). Empty for a one-off.
	Cron string `json:"cron,omitempty"`
	// TimeZone is the IANA zone the cron expression is read in (default
	// UTC).
	TimeZone string `json:"timeZone,omitempty"`
	// At is a one-off's time; zero for a cron schedule.
	At time.Time `json:"at,omitzero"`
	// Input is the text each fire sends; InputData, instead, the object
	// each fire sends to an agent with a typed input (input.go).
	Input     string          `json:"input"`
	InputData json.RawMessage `json:"inputData,omitempty"`
	// SessionID is the session each fire runs in; empty: a new session
	// per fire.
	SessionID string `json:"sessionId,omitempty"`
	// OnBusy is the busy strategy of a fire whose session is busy ("": the
	// agent's).
	OnBusy string `json:"onBusy,omitempty"`
	// Webhook receives each fire's final receipt.
	Webhook   *runtime.Webhook `json:"webhook,omitempty"`
	CreatedAt time.Time        `json:"createdAt"`
	UpdatedAt time.Time        `json:"updatedAt"`
}

// parser reads five-field crons, six with seconds first, and descriptors.
var parser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// fieldError is a refused definition: the field and what is wrong with it.
type fieldError struct{ field, detail string }

func (e fieldError) Error() string { return e.field + " " + e.detail }

// when is a definition's timing, parsed: the next fire time after a time.
type when struct {
	sched cron.Schedule // nil for a one-off
	at    time.Time
}

// parseWhen checks the timing of a definition: exactly one of cron and at,
// a time zone only with cron.
func parseWhen(d Definition) (when, error) {
	switch {
	case d.Cron == "" && d.At.IsZero():
		return when{}, fieldError{"cron", "or at is required: a cron expression, or a one-off time (RFC 3339)"}
	case d.Cron != "" && !d.At.IsZero():
		return when{}, fieldError{"at", "cannot be given with cron: a schedule is one or the other"}
	case d.Cron == "":
		if d.TimeZone != "" {
			return when{}, fieldError{"timeZone", "applies to cron only; give at with its offset"}
		}
		return when{at: d.At}, nil
	}
	if strings.HasPrefix(d.Cron, "TZ=") || strings.HasPrefix(d.Cron, "CRON_TZ=") {
		return when{}, fieldError{"cron", "must not name a time zone; use timeZone"}
	}
	loc, err := location(d.TimeZone)
	if err != nil {
		return when{}, err
	}
	sched, err := parser.Parse(d.Cron)
	if err != nil {
		return when{}, fieldError{"cron", "is not a valid cron expression: " + err.Error()}
	}
	return when{sched: zoned{sched, loc}}, nil
}

// location loads an IANA time zone; "" is UTC.
func location(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if name == "Local" || len(name) > 64 {
		return nil, fieldError{"timeZone", "must be an IANA time zone such as Europe/Berlin or UTC"}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fieldError{"timeZone", "is not a known IANA time zone (such as Europe/Berlin or UTC)"}
	}
	return loc, nil
}

// zoned reads a cron schedule in a time zone.
type zoned struct {
	cron.Schedule
	loc *time.Location
}

func (z zoned) Next(t time.Time) time.Time { return z.Schedule.Next(t.In(z.loc)) }

// first is the first fire time after now: a one-off's time (which must
// be later than now), or the cron's next.
func (w when) first(now time.Time) (time.Time, error) {
	if w.sched == nil {
		if !w.at.After(now) {
			return time.Time{}, fieldError{"at", "must be in the future"}
		}
		return w.at, nil
	}
	next := w.sched.Next(now)
	if next.IsZero() {
		return time.Time{}, fieldError{"cron", "never fires"}
	}
	return next, nil
}

// after is the fire time that follows one at t: none (zero) for a
// one-off.
func (w when) after(t time.Time) time.Time {
	if w.sched == nil {
		return time.Time{}
	}
	return w.sched.Next(t)
}

// decodeDefinition reads a stored definition.
func decodeDefinition(b []byte) (Definition, when, error) {
	var d Definition
	if err := json.Unmarshal(b, &d); err != nil {
		return d, when{}, err
	}
	w, err := parseWhen(d)
	return d, w, err
}
