package openaiapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/harnest/harnest/internal/httpapi"

	"github.com/harnest/harnest/runtime"
)

// orResponse is the Open Responses response object (ResponseResource):
// every field the specification requires, with the sampling fields the
// agent decides for itself at their neutral values.
type orResponse struct {
	ID                 string             `json:"id"`
	Object             string             `json:"object"` // always "response"
	CreatedAt          int64              `json:"created_at"`
	CompletedAt        *int64             `json:"completed_at"`
	Status             string             `json:"status"`
	IncompleteDetails  *incompleteDetails `json:"incomplete_details"`
	Model              string             `json:"model"`
	PreviousResponseID *string            `json:"previous_response_id"`
	Instructions       *string            `json:"instructions"`
	Output             []*orItem          `json:"-"` // written first, by appendJSON
	Error              *orError           `json:"error"`
	Tools              []json.RawMessage  `json:"tools"`
	// The settings the request may set (settings.go): as it sent them, or
	// their neutral values.
	ToolChoice        json.RawMessage  `json:"tool_choice"`
	Truncation        json.RawMessage  `json:"truncation"`
	ParallelToolCalls json.RawMessage  `json:"parallel_tool_calls"`
	Text              json.RawMessage  `json:"text"`
	TopP              json.RawMessage  `json:"top_p"`
	PresencePenalty   json.RawMessage  `json:"presence_penalty"`
	FrequencyPenalty  json.RawMessage  `json:"frequency_penalty"`
	TopLogprobs       json.RawMessage  `json:"top_logprobs"`
	Temperature       json.RawMessage  `json:"temperature"`
	Reasoning         json.RawMessage  `json:"reasoning"`
	User              json.RawMessage  `json:"user"`
	Usage             *orUsage         `json:"usage"`
	MaxOutputTokens   json.RawMessage  `json:"max_output_tokens"`
	MaxToolCalls      json.RawMessage  `json:"max_tool_calls"`
	Store             bool             `json:"store"`
	Background        bool             `json:"background"`
	ServiceTier       json.RawMessage  `json:"service_tier"`
	Metadata          json.RawMessage  `json:"metadata"`
	SafetyIdentifier  json.RawMessage  `json:"safety_identifier"`
	PromptCacheKey    json.RawMessage  `json:"prompt_cache_key"`
	Conversation      *conversationRef `json:"conversation,omitempty"`
	// OutputText is what the SDKs' output_text helper reads: the text of
	// the output's messages.
	OutputText string `json:"output_text"`
}

type incompleteDetails struct {
	Reason string `json:"reason"`
}

// orError is the error of a failed response: a stable code and a sentence.
type orError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type conversationRef struct {
	ID string `json:"id"`
}

// orUsage is token usage in the specification's names.
type orUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// appendJSON appends the response object: its output items written
// directly, then the other members as encoding/json writes them.
func (r *orResponse) appendJSON(b []byte) []byte {
	type members orResponse // without methods
	rest, err := json.Marshal((*members)(r))
	if err != nil {
		rest = []byte("{}")
	}
	b = append(b, `{"output":[`...)
	for i, it := range r.Output {
		if i > 0 {
			b = append(b, ',')
		}
		b = it.appendJSON(b)
	}
	b = append(b, ']')
	if len(rest) > 2 {
		b = append(b, ',')
		b = append(b, rest[1:]...)
	} else {
		b = append(b, '}')
	}
	return b
}

// writeResponse answers 200 with the response object.
func writeResponse(w http.ResponseWriter, r orResponse) {
	httpapi.WriteRaw(w, http.StatusOK, r.appendJSON(nil))
}

// MarshalJSON writes the response object as appendJSON does.
func (r orResponse) MarshalJSON() ([]byte, error) { return r.appendJSON(nil), nil }

func orUsageOf(u runtime.Usage) *orUsage {
	return &orUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
}

// echoed is what a response object repeats of the request that made it.
// The door keeps it with the response (requestRecord), so that a response
// read back (GET, on any replica) repeats it as the create request's
// answer did.
type echoed struct {
	Model              string            `json:"model"`
	PreviousResponseID string            `json:"previousResponseId,omitempty"`
	Instructions       string            `json:"instructions,omitempty"`
	Tools              []json.RawMessage `json:"tools,omitempty"`
	Metadata           json.RawMessage   `json:"metadata,omitempty"`
	Store              bool              `json:"store"`
	Background         bool              `json:"background"`
	Conversation       string            `json:"conversation,omitempty"`
	// Settings are the request's settings as it sent them, by name
	// (settings.go: tool_choice, temperature, ...).
	Settings map[string]json.RawMessage `json:"settings,omitempty"`
}

// resource is the response object of ref in the given state.
func (e echoed) resource(ref responseRef, status string, output []*orItem) orResponse {
	r := orResponse{ID: ref.String(), Object: "response", CreatedAt: ref.Created, Status: status, Model: e.Model,
		Output: output, Tools: e.Tools, Store: e.Store, Background: e.Background, Metadata: e.Metadata}
	e.setSettings(&r) // settings.go
	if r.Output == nil {
		r.Output = []*orItem{}
	}
	if r.Tools == nil {
		r.Tools = []json.RawMessage{}
	}
	if len(r.Metadata) == 0 || string(r.Metadata) == "null" {
		r.Metadata = json.RawMessage("{}")
	}
	if e.PreviousResponseID != "" {
		r.PreviousResponseID = &e.PreviousResponseID
	}
	if e.Instructions != "" {
		r.Instructions = &e.Instructions
	}
	if e.Conversation != "" {
		r.Conversation = &conversationRef{ID: e.Conversation}
	}
	var text strings.Builder
	for _, item := range r.Output {
		if item.Type == "message" {
			text.Write(item.text)
		}
	}
	r.OutputText = text.String()
	return r
}
