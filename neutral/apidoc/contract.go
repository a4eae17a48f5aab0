package apidoc

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// A typed agent's contract in the document (Options.InputSchema,
// OutputSchema: spec.inputSchema and spec.outputSchema): the schemas are
// the components AgentInput and AgentOutput; createAgentResponse's input
// refers to AgentInput (with an example object instead of the text
// examples), and the envelope's result to AgentOutput.

// addContract puts the agent's schemas in the document.
func (b *builder) addContract(doc *openapi3.T, o Options) error {
	if len(o.InputSchema) > 0 {
		s, err := contractSchema("spec.inputSchema", json.RawMessage(o.InputSchema),
			"The agent's typed input (spec.inputSchema): `input` must be an object that matches this schema. "+
				"Anything else is refused with 400 `input_invalid`, whose `violations` name each place by its JSON Pointer. "+
				"A field may name an asset of the session as `{\"assetId\": ...}`: the agent gets the asset as media (pass `sessionId`).")
		if err != nil {
			return err
		}
		b.define("AgentInput", s)
		if err := b.typedRequest(doc, s); err != nil {
			return err
		}
	}
	if len(o.OutputSchema) > 0 {
		s, err := contractSchema("spec.outputSchema", json.RawMessage(o.OutputSchema),
			"The agent's typed output (spec.outputSchema): a completed response carries its answer, parsed and checked "+
				"against this schema, as `result` beside `outputText`; an answer that does not match fails with `output_invalid`.")
		if err != nil {
			return err
		}
		b.define("AgentOutput", s)
		if item := doc.Paths.Value("/responses"); item != nil && item.Post != nil {
			item.Post.Description += " This agent's answers are typed: a completed response carries the answer as `result`, " +
				"which matches `AgentOutput` (its `spec.outputSchema`); an answer that cannot be made to match fails the response " +
				"with `output_invalid` (HTTP 500 on a JSON call; the receipt says failed)."
		}
		if env := b.schemas["ResponseEnvelope"]; env != nil && env.Value != nil && env.Value.Properties["result"] != nil {
			env.Value.Properties["result"] = b.ref("AgentOutput")
		}
	}
	return nil
}

// contractSchema reads a JSON Schema as an OpenAPI schema.
func contractSchema(key string, raw json.RawMessage, description string) (*openapi3.SchemaRef, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("apidoc: %s cannot be shown as an OpenAPI schema: %w", key, err)
	}
	raw, _ = json.Marshal(toOpenAPI30(m))
	var s openapi3.Schema
	if json.Unmarshal(raw, &s) != nil || s.Validate(context.Background()) != nil {
		// A JSON Schema that OpenAPI 3.0 cannot say (type lists,
		// prefixItems …): an object, with the schema itself beside it.
		s = openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject},
			Extensions: map[string]any{"x-json-schema": json.RawMessage(raw)}}
	}
	if s.Description == "" {
		s.Description = description
	}
	return inline(&s), nil
}

// typedRequest points createAgentResponse's input at AgentInput and gives
// the request typed examples.
func (b *builder) typedRequest(doc *openapi3.T, input *openapi3.SchemaRef) error {
	item := doc.Paths.Value("/responses")
	if item == nil || item.Post == nil || item.Post.RequestBody == nil {
		return fmt.Errorf("apidoc: no POST /responses to type")
	}
	media := item.Post.RequestBody.Value.Content.Get(mediaJSON)
	media.Schema.Value.Properties["input"] = b.ref("AgentInput")
	ex := exampleOf(input.Value)
	media.Examples = openapi3.Examples{
		"newConversation": example("Start a new conversation with a typed input", map[string]any{"input": ex}),
		"stream":          example("Stream the reply as Server-Sent Events", map[string]any{"input": ex, "stream": true}),
		"followUp": example("Continue a conversation (use the sessionId from an earlier reply)",
			map[string]any{"input": ex, "sessionId": "REPLACE_WITH_RETURNED_SESSION_ID"}),
	}
	item.Post.Description += " This agent is typed: `input` is an object that matches `AgentInput` (its `spec.inputSchema`)."
	return nil
}

// exampleOf is an example value of a schema: its own example, else one
// built from its required properties.
func exampleOf(s *openapi3.Schema) any {
	if s == nil {
		return nil
	}
	if s.Example != nil {
		return s.Example
	}
	if ex, ok := s.Extensions["examples"].([]any); ok && len(ex) > 0 {
		return ex[0]
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if s.Default != nil {
		return s.Default
	}
	switch {
	case s.Type.Is("object") || len(s.Properties) > 0:
		out := map[string]any{}
		for _, name := range s.Required {
			if p := s.Properties[name]; p != nil {
				out[name] = exampleOf(p.Value)
			}
		}
		return out
	case s.Type.Is("array"):
		return []any{}
	case s.Type.Is("integer"):
		if s.Min != nil {
			return int(*s.Min)
		}
		return 1
	case s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return true
	}
	return "example"
}

// toOpenAPI30 rewrites what JSON Schema 2020-12 and OpenAPI 3.0 spell
// differently, at every level: no $schema, $id or $comment, and the first
// of "examples" as "example".
func toOpenAPI30(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "$schema")
		delete(v, "$id")
		delete(v, "$comment")
		if ex, ok := v["examples"].([]any); ok {
			delete(v, "examples")
			if _, has := v["example"]; !has && len(ex) > 0 {
				v["example"] = ex[0]
			}
		}
		for k, child := range v {
			if k != "example" && k != "default" && k != "enum" && k != "const" {
				v[k] = toOpenAPI30(child)
			}
		}
	case []any:
		for i, child := range v {
			v[i] = toOpenAPI30(child)
		}
	}
	return v
}
