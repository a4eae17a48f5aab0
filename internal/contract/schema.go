package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// MaxViolations bounds how many violations Check lists.
const MaxViolations = 20

// printer renders the validator's messages in English.
var printer = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema with the JSON it was compiled from.
type Schema struct {
	raw      json.RawMessage
	compiled *jsonschema.Schema
}

// Violation is one place where a value breaks a schema: Pointer is its
// JSON Pointer in the value ("" is the value itself), Message what is
// wrong there.
type Violation struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// String is "at /pointer: message" (the top level is named so).
func (v Violation) String() string {
	at := v.Pointer
	if at == "" {
		at = "the top level"
	}
	return "at " + at + ": " + v.Message
}

// Compile compiles a JSON Schema. name says which schema it is, for the
// error ("input schema").
func Compile(name string, raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("the %s is not valid JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	location := "harnest-" + strings.ReplaceAll(name, " ", "-") + ".json"
	if err := c.AddResource(location, doc); err != nil {
		return nil, fmt.Errorf("the %s cannot be used: %w", name, err)
	}
	compiled, err := c.Compile(location)
	if err != nil {
		return nil, fmt.Errorf("the %s does not compile: %w", name, err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, fmt.Errorf("the %s is not valid JSON: %w", name, err)
	}
	return &Schema{raw: b.Bytes(), compiled: compiled}, nil
}

// noLoader refuses every document a schema refers to.
type noLoader struct{}

// Load implements jsonschema.URLLoader.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to another document (%s); a contract's schema must be self-contained", url)
}

// JSON is the schema as compact JSON (nil for a nil Schema).
func (s *Schema) JSON() json.RawMessage {
	if s == nil {
		return nil
	}
	return s.raw
}

// Check validates a JSON value: nil when it matches, else its violations
// (at most MaxViolations, the deepest ones, in pointer order). A value
// that is not JSON is one violation at the top level.
func (s *Schema) Check(value json.RawMessage) []Violation {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return []Violation{{Message: "is not valid JSON"}}
	}
	return s.CheckValue(v)
}

// CheckValue is Check for a value decoded by jsonschema.UnmarshalJSON
// (numbers as json.Number).
func (s *Schema) CheckValue(v any) []Violation {
	if s == nil || s.compiled == nil {
		return nil
	}
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []Violation{{Message: "could not be checked: " + err.Error()}}
	}
	leaves := Leaves(verr)
	out := make([]Violation, 0, len(leaves))
	for _, leaf := range leaves {
		out = append(out, Violation{Pointer: Pointer(leaf.InstanceLocation), Message: leaf.ErrorKind.LocalizedString(printer)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	if len(out) > MaxViolations {
		out = out[:MaxViolations]
	}
	return out
}

// Leaves are the deepest errors of a validation error's tree: where the
// value breaks the schema.
func Leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	var leaves []*jsonschema.ValidationError
	collectLeaves(e, &leaves)
	return leaves
}

// collectLeaves gathers the deepest errors of the tree.
func collectLeaves(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	if len(e.Causes) == 0 {
		*out = append(*out, e)
		return
	}
	for _, cause := range e.Causes {
		collectLeaves(cause, out)
	}
}

// Pointer is the JSON Pointer of a validation error's location ("" for
// the top level).
func Pointer(location []string) string {
	var b strings.Builder
	for _, token := range location {
		token = strings.ReplaceAll(token, "~", "~0")
		token = strings.ReplaceAll(token, "/", "~1")
		b.WriteString("/" + token)
	}
	return b.String()
}

// Describe joins violations into one sentence part: "at /a: …; at /b: …".
func Describe(vs []Violation) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}
