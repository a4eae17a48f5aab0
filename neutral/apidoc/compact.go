package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Compaction of long sessions: the compaction item of a transcript, and
// POST /sessions/{sessionId}/compact.

// compactionRangeSchema is the range of messages a compaction item stands
// for (Message.replaces).
func compactionRangeSchema() *openapi3.SchemaRef {
	return object("The transcript messages the compaction item stands for in the agent's prompt (earlier compaction items included).",
		req("fromIndex", integer("The index of the first message (0 is the transcript's first).")),
		req("toIndex", integer("The index of the last message.")),
		req("fromMessageId", str("The ID of the first message.")),
		req("toMessageId", str("The ID of the last message.")),
	)
}

// compactionMessageFields are the fields a compaction item adds to a
// transcript message.
func compactionMessageFields() []field {
	return []field{
		opt("type", enumStr("Only on a compaction item: a summary that stands for the messages of `replaces` in the "+
			"agent's prompt (its `role` is `system`, its `content` the summary, its `metadata` `reason`, `model`, "+
			"`summarized` and, when a turn compacted, `responseId`).", "compaction")),
		opt("replaces", compactionRangeSchema()),
	}
}

func (b *builder) addCompaction(doc *openapi3.T) {
	b.define("CompactionItem", object("A compaction item of a session transcript.",
		req("id", str("The item's ID (`cmp_...`).")),
		req("type", enumStr("", "compaction")),
		req("role", enumStr("What the agent's model is shown it as.", "system")),
		req("content", str("The summary.")),
		req("replaces", compactionRangeSchema()),
		req("createdAt", timestamp("When it was made.")),
		req("metadata", object("How it was made.",
			req("reason", enumStr("`budget`: the prompt outgrew the agent's token budget; `messages`: more messages than "+
				"the agent sends; `request`: `POST /sessions/{sessionId}/compact`.", "budget", "messages", "request")),
			opt("model", str("The model that wrote the summary.")),
			req("summarized", integer("How many messages it summarised beyond the item before it.")),
			opt("responseId", str("The response whose turn compacted.")),
		)),
	))
	body := jsonBody("Optional: send no body for the agent's defaults.", strictObject("What to keep.",
		opt("keepRecent", describe(openapi3.NewIntegerSchema().WithMin(0).WithMax(1000),
			"How many of the newest messages stay as they are (default: the agent's `context.keepRecent`, or 10).")),
	))
	body.Value.Required = false
	doc.AddOperation("/sessions/{sessionId}/compact", http.MethodPost, b.op(tagSessions, "compactSession",
		"Compact a session now",
		"Harnest extension: the agent's model summarises the session's messages but the newest ones into a "+
			"compaction item, appended to the transcript (`GET /sessions/{sessionId}/messages` shows it with the range "+
			"it replaces); later turns send the summary and the messages after its range instead of the older ones. "+
			"The model backend also compacts on its own when a prompt outgrows `spec.backend.model.context.maxTokens`.").
		params(sessionPathParam()).
		takesJSON(body).
		answers(
			jsonReply(200, "The session's newest compaction item.", object("The outcome of a compaction.",
				req("object", enumStr("", "session.compaction")),
				req("sessionId", str("The session.")),
				req("compacted", boolean("Whether a new item was made (false: nothing older than the kept messages was left to summarise).", false)),
				req("compaction", describe(&openapi3.Schema{Nullable: true, AllOf: openapi3.SchemaRefs{b.ref("CompactionItem")}},
					"The session's newest compaction item; null when it has none.")),
			)),
			b.failure(400, "The body is not valid JSON, has unknown fields, or `keepRecent` is not an integer from 0 to 1000."),
			b.sessionNotFound(),
			b.failure(409, "A response holds the session (`session_busy`), the agent does not compact sessions "+
				"(`compaction_unsupported`), or another compaction was saved meanwhile (`compaction_changed`)."),
			b.failure(503, "The model or the store is unavailable; retry shortly."),
		).done())
}
