package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Schedules: turns that start themselves (package schedule)

const tagSchedules = "Schedules"

const schedulesTagDescription = "Harnest extension: turns that start themselves, at the times of a cron expression in a " +
	"time zone or at one time. Each fire happens exactly once across every replica (claimed in the store), runs as a " +
	"background response in a new session (or the schedule's own), and posts its receipt to the schedule's webhook. " +
	"Fires found more than `server.schedules.missedAfterSeconds` late (every replica was down) follow " +
	"`server.schedules.missedFires`: `runOnce` (one fire for all that were missed) or `skip`. A fire whose session is " +
	"busy follows the schedule's `onBusy` (else the agent's). An owner may manage anyone's schedules with `?user=`."

func scheduleIDParam() *openapi3.ParameterRef {
	return pathParam("scheduleId", "The schedule ID.")
}

func scheduleUserParam() *openapi3.ParameterRef {
	return queryParam("user", "Owners only: the user whose schedules to manage (default: the caller's).", false, str(""))
}

// scheduleFields are the members of a schedule that a body may set.
func scheduleFields() []field {
	return []field{
		opt("cron", str("A cron expression: five fields (minute hour day-of-month month day-of-week), six with seconds "+
			"first, or a descriptor (`@hourly`, `@daily`, `@every 90s`). One of `cron` and `at`.")),
		opt("timeZone", str("The IANA time zone `cron` is read in, such as `Europe/Berlin` (default UTC).")),
		opt("at", describe(openapi3.NewDateTimeSchema(), "A one-off's time (RFC 3339), in the future. One of `cron` and `at`.")),
		opt("input", describe(&openapi3.Schema{OneOf: openapi3.SchemaRefs{str(""), openapi3.NewObjectSchema().NewRef()}},
			"What each fire sends (required on create): text, or, for an agent with an input schema, an object that "+
				"matches it (see `createAgentResponse`'s `input`), checked when the schedule is stored.")),
		opt("sessionId", nullableStr("The session each fire runs in; left out or null: a new session per fire.")),
		opt("onBusy", enumStr("What a fire does when its session is busy (default: the agent's `spec.onBusy`).",
			"reject", "enqueue", "interrupt", "rollback")),
		opt("webhook", webhookSchema()),
		opt("paused", boolean("A paused schedule does not fire.", false)),
	}
}

func scheduleSchema() *openapi3.SchemaRef {
	fields := append([]field{
		req("id", str("The schedule's ID.")),
		req("userId", str("Whose schedule it is.")),
		req("nextFireAt", timestamp("When it fires next; null: never again (a one-off that fired).")),
		req("fires", integer("How many fires it had.")),
		req("createdAt", timestamp("")),
		req("updatedAt", timestamp("")),
	}, scheduleFields()...)
	return object("A schedule.", fields...)
}

func fireSchema() *openapi3.SchemaRef {
	return object("One fire of a schedule.",
		req("seq", integer("The fire's number, from 1.")),
		req("at", timestamp("When it was due (or asked for, run-now).")),
		req("manual", boolean("Asked for with run-now.", false)),
		req("sessionId", str("The session it runs in.")),
		req("responseId", str("Its response: `GET /responses/{responseId}?sessionId=` reads the receipt.")),
		req("status", enumStr("pending (claimed, starting), started, or failed (`error` says why it could not start).",
			"pending", "started", "failed")),
		opt("error", str("Why the fire could not start, such as `session_busy: ...`.")),
	)
}

func (b *builder) addSchedules(doc *openapi3.T) {
	doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagSchedules, Description: schedulesTagDescription})
	bad := b.failure(400, "A field is refused (the detail names it: `cron`, `timeZone`, `at`, `input`, `sessionId`, `onBusy`, "+
		"`webhook.url`, or an unknown member); nothing is stored or changed.")
	notFound := b.failure(404, "No such schedule of this user (or `?user=` from someone not an owner).")
	one := jsonReply(200, "The schedule.", scheduleSchema())
	op := b.extensionOps(doc, tagSchedules)
	byID := openapi3.Parameters{scheduleIDParam(), scheduleUserParam()}
	op("/schedules", http.MethodPost, "createSchedule", "Create a schedule",
		"a schedule of the caller (or, for an owner, of `?user=`), within `server.schedules.maxPerUser`.",
		openapi3.Parameters{scheduleUserParam()}, jsonBody("The schedule.", strictObject("A new schedule.", scheduleFields()...)),
		jsonReply(201, "Created.", scheduleSchema()), bad, b.failure(429, "The user has `server.schedules.maxPerUser` schedules "+
			"(`too_many_schedules`); nothing is stored."), b.tooLarge())
	op("/schedules", http.MethodGet, "listSchedules", "List schedules", "the user's schedules in ID order, a page at a time.",
		openapi3.Parameters{scheduleUserParam(), cursorParam(), limitParam()}, nil,
		jsonReply(200, "A page of schedules.", pageOf("schedules", scheduleSchema())),
		b.failure(400, "`limit` is not 1 to 100."))
	op("/schedules/{scheduleId}", http.MethodGet, "getSchedule", "Read a schedule", "one schedule.", byID, nil, one, notFound)
	op("/schedules/{scheduleId}", http.MethodPatch, "updateSchedule", "Change a schedule",
		"changes the members sent; a new timing sets the next fire from now.", byID,
		jsonBody("The members to change.", strictObject("Members of a schedule.", scheduleFields()...)),
		one, bad, notFound, b.failure(409, "It fired or changed meanwhile (`schedule_changed`); retry."), b.tooLarge())
	op("/schedules/{scheduleId}", http.MethodDelete, "deleteSchedule", "Delete a schedule",
		"deletes it with its history of fires; responses already started go on.", byID, nil,
		emptyReply(204, "Deleted."), notFound)
	op("/schedules/{scheduleId}/pause", http.MethodPost, "pauseSchedule", "Pause a schedule", "stops its fires.", byID, nil, one, notFound)
	op("/schedules/{scheduleId}/resume", http.MethodPost, "resumeSchedule", "Resume a schedule",
		"fires again from its next time after now (a one-off whose time passed fires as a missed fire).", byID, nil, one, notFound)
	op("/schedules/{scheduleId}/run", http.MethodPost, "runSchedule", "Fire a schedule now",
		"fires it now, once, whatever its timing (also paused); its next fire time stays.", byID, nil,
		jsonReply(202, "The fire, started (or failed, saying why).", fireSchema()), notFound)
	op("/schedules/{scheduleId}/fires", http.MethodGet, "listScheduleFires", "List a schedule's fires",
		"its fires, newest first, with their responses (the newest 1000 are kept).",
		openapi3.Parameters{scheduleIDParam(), scheduleUserParam(), cursorParam(), limitParam()}, nil,
		jsonReply(200, "A page of fires.", pageOf("fires", fireSchema())),
		b.failure(400, "`limit` or `cursor` is refused."), notFound)
}
