package schedule

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/harnest/harnest/runtime"
)

// fields is a create or patch body: every member optional here; create
// checks what it requires. A member sent as null clears it (at, webhook,
// sessionId: a new session per fire).
type fields struct {
	Cron      *string         `json:"cron"`
	TimeZone  *string         `json:"timeZone"`
	At        *string         `json:"at"`
	Input     json.RawMessage `json:"input"`
	SessionID *string         `json:"sessionId"`
	OnBusy    *string         `json:"onBusy"`
	Webhook   json.RawMessage `json:"webhook"`
	Paused    *bool           `json:"paused"`
}

// decodeFields reads a strict JSON object: unknown members and members of
// the wrong type are refused, naming the member.
func decodeFields(body []byte) (fields, error) {
	var f fields
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil && dec.Decode(new(json.RawMessage)) != io.EOF {
		err = errors.New("trailing data")
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return f, nil
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return f, fieldError{typeErr.Field, "has the wrong type: expected " + typeErr.Type.String()}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return f, fieldError{name, "is not a schedule field (cron, timeZone, at, input, sessionId, onBusy, webhook, paused)"}
	}
	return f, fieldError{"body", "must be one JSON object"}
}

// apply sets the members f holds on d.
func (f fields) apply(d *Definition) error {
	if f.Cron != nil {
		d.Cron = strings.TrimSpace(*f.Cron)
	}
	if f.TimeZone != nil {
		d.TimeZone = *f.TimeZone
	}
	if f.At != nil {
		d.At = time.Time{}
		if *f.At != "" {
			at, err := time.Parse(time.RFC3339, *f.At)
			if err != nil {
				return fieldError{"at", "must be a time in RFC 3339 (2026-12-24T18:00:00+01:00)"}
			}
			d.At = at.UTC()
		}
	}
	if f.Input != nil {
		if err := setInput(d, f.Input); err != nil {
			return err
		}
	}
	if f.SessionID != nil {
		d.SessionID = *f.SessionID
	}
	if f.OnBusy != nil {
		d.OnBusy = *f.OnBusy
	}
	if f.Webhook != nil {
		d.Webhook = nil
		if string(f.Webhook) != "null" {
			w, err := decodeWebhook(f.Webhook)
			if err != nil {
				return err
			}
			d.Webhook = w
		}
	}
	return nil
}

func decodeWebhook(raw json.RawMessage) (*runtime.Webhook, error) {
	var w runtime.Webhook
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fieldError{"webhook", `must be {"url": "https://...", "events"?: boolean}`}
	}
	if w.URL == "" {
		return nil, fieldError{"webhook.url", "is required: an absolute https URL"}
	}
	return &w, nil
}
