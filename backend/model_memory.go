package backend

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnest/harnest/backend/chat"
	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/memory"
	"github.com/harnest/harnest/internal/toolrun"
)

// The model backend's memory tools (spec.memory.tools): memory_save and
// memory_search, offered after the configured tools. They run in the
// caller's memory (the turn's user, the agent's name), never another's,
// and answer the model with JSON, or with a sentence when it asked for
// something the memory refuses.

// Names of the memory tools.
const (
	toolMemorySave   = "memory_save"
	toolMemorySearch = "memory_search"
	// defaultMemoryNamespace is where memory_save puts what the model
	// saves without naming a namespace.
	defaultMemoryNamespace = "memories"
	maxToolSearchHits      = 20
)

var memorySaveParameters = json.RawMessage(`{"type":"object","properties":{` +
	`"content":{"type":"string","description":"What to remember, as one self-contained sentence or note."},` +
	`"key":{"type":"string","description":"A short name for the memory; saving under the same key replaces it. Default: derived from the content."},` +
	`"namespace":{"type":"string","description":"A group of memories, such as preferences or facts. Default: memories."},` +
	`"ttlSeconds":{"type":"integer","minimum":1,"description":"Forget it after this many seconds. Default: keep it."}},` +
	`"required":["content"],"additionalProperties":false}`)

var memorySearchParameters = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"What to look for in the user's memories."},` +
	`"namespace":{"type":"string","description":"Search one namespace only. Default: all."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"How many memories at most. Default: 5."}},` +
	`"required":["query"],"additionalProperties":false}`)

// UseMemory offers the memory tools when spec.memory.tools is on (mem
// nil: memory is not available, the tools are not offered).
func (m *Model) UseMemory(c config.Memory, mem *memory.Service) {
	if c.Tools && mem != nil {
		m.memory = mem
	}
}

// memoryToolSpecs are the memory tools as the model sees them (none when
// they are off).
func (m *Model) memoryToolSpecs() []chat.Tool {
	if m.memory == nil {
		return nil
	}
	return []chat.Tool{
		chatTool(toolMemorySave, "Save a memory about the user that should outlive this conversation (preferences, facts, decisions). Saved memories can be found later with memory_search.", memorySaveParameters),
		chatTool(toolMemorySearch, "Search the memories saved about the user in earlier conversations; the best matches come first.", memorySearchParameters),
	}
}

// isMemoryTool reports whether name is a memory tool the model is offered.
func (m *Model) isMemoryTool(name string) bool {
	return m.memory != nil && (name == toolMemorySave || name == toolMemorySearch)
}

// callMemory runs a memory tool for user. Like a tool set's Call, it
// returns an error only when ctx is done.
func (m *Model) callMemory(ctx context.Context, user, name string, args json.RawMessage) (toolrun.Result, error) {
	var out any
	var err error
	switch name {
	case toolMemorySave:
		out, err = m.memorySave(ctx, user, args)
	default:
		out, err = m.memorySearch(ctx, user, args)
	}
	var fe *memory.FieldError
	switch {
	case err == nil:
		b, _ := json.Marshal(out)
		return toolrun.Result{Output: b}, nil
	case ctx.Err() != nil:
		return toolrun.Result{}, fmt.Errorf("tool %s: %w", name, ctx.Err())
	case errors.As(err, &fe):
		return toolError("The arguments were refused: " + fe.Error()), nil
	case errors.Is(err, memory.ErrEmbeddings):
		return toolError("The memory's embeddings endpoint is not answering; try again later."), nil
	default:
		m.log.Warn("model backend: a memory tool failed", "tool", name, "err", err)
		return toolError("The memory store is unavailable; try again later."), nil
	}
}

func (m *Model) memorySave(ctx context.Context, user string, args json.RawMessage) (any, error) {
	var in struct {
		Content    string `json:"content"`
		Key        string `json:"key"`
		Namespace  string `json:"namespace"`
		TTLSeconds int64  `json:"ttlSeconds"`
	}
	if err := strictArgs(args, &in); err != nil {
		return nil, err
	}
	if in.Content == "" {
		return nil, &memory.FieldError{Field: "content", Detail: "required: what to remember"}
	}
	if in.Namespace == "" {
		in.Namespace = defaultMemoryNamespace
	}
	if in.Key == "" {
		sum := sha256.Sum256([]byte(in.Content))
		in.Key = "m-" + hex.EncodeToString(sum[:6])
	}
	value, _ := json.Marshal(in.Content)
	it, err := m.memory.Put(ctx, user, memory.Put{Namespace: in.Namespace, Key: in.Key, Value: value, Text: in.Content, TTLSeconds: in.TTLSeconds})
	if err != nil {
		return nil, err
	}
	return map[string]any{"saved": map[string]string{"namespace": it.Namespace, "key": it.Key}}, nil
}

func (m *Model) memorySearch(ctx context.Context, user string, args json.RawMessage) (any, error) {
	var in struct {
		Query     string `json:"query"`
		Namespace string `json:"namespace"`
		Limit     int    `json:"limit"`
	}
	if err := strictArgs(args, &in); err != nil {
		return nil, err
	}
	if in.Limit == 0 {
		in.Limit = 5
	}
	if in.Limit < 1 || in.Limit > maxToolSearchHits {
		return nil, &memory.FieldError{Field: "limit", Detail: fmt.Sprintf("must be from 1 to %d", maxToolSearchHits)}
	}
	hits, err := m.memory.Search(ctx, user, memory.Search{Query: in.Query, Namespace: in.Namespace, Limit: in.Limit})
	if err != nil {
		return nil, err
	}
	type found struct {
		Namespace string          `json:"namespace"`
		Key       string          `json:"key"`
		Value     json.RawMessage `json:"value"`
		Score     float64         `json:"score"`
	}
	out := []found{}
	for _, h := range hits {
		out = append(out, found{Namespace: h.Item.Namespace, Key: h.Item.Key, Value: h.Item.Value, Score: h.Score})
	}
	return map[string]any{"memories": out}, nil
}

// strictArgs decodes a tool's arguments, refusing members it does not
// know and members of the wrong type.
func strictArgs(args json.RawMessage, v any) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(args, &members); err != nil || members == nil {
		return &memory.FieldError{Field: "arguments", Detail: "must be a JSON object"}
	}
	if err := json.Unmarshal(args, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &memory.FieldError{Field: te.Field, Detail: "has the wrong type (got a JSON " + te.Value + ")"}
		}
		return &memory.FieldError{Field: "arguments", Detail: "must be a JSON object"}
	}
	known, _ := json.Marshal(v)
	var kept map[string]json.RawMessage
	_ = json.Unmarshal(known, &kept)
	for k := range members {
		if _, ok := kept[k]; !ok {
			return &memory.FieldError{Field: k, Detail: "is not an argument of this tool"}
		}
	}
	return nil
}
