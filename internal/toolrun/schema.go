package toolrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/harnest/harnest/internal/contract"
)

// emptyObjectSchema is the parameters of a tool that declared none: an
// object with no declared properties.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// maxReportedProblems bounds how many places a validation error names.
const maxReportedProblems = 3

// schemaPrinter renders the validator's messages in English.
var schemaPrinter = message.NewPrinter(language.English)

// Schema is a compiled JSON Schema of a tool's arguments.
type Schema struct {
	compiled *jsonschema.Schema
}

// CompileSchema compiles a JSON Schema (draft 2020-12 unless its $schema
// says otherwise). The schema must be self-contained: a $ref to another
// document is an error, so that compiling never reads a file or the
// network.
func CompileSchema(raw json.RawMessage) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("the schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const location = "harnest-tool-parameters.json"
	if err := c.AddResource(location, doc); err != nil {
		return nil, fmt.Errorf("the schema cannot be used: %w", err)
	}
	compiled, err := c.Compile(location)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %w", err)
	}
	return &Schema{compiled: compiled}, nil
}

// noLoader refuses every document a schema refers to.
type noLoader struct{}

// Load implements jsonschema.URLLoader.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to another document (%s); tool schemas must be self-contained", url)
}

// Validate checks a call's arguments: nil, or an error whose text is one
// sentence for the model saying what is wrong (not JSON, not an object, or
// where the arguments break the schema). A nil Schema checks only that the
// arguments are a JSON object. Empty arguments count as {}.
func (s *Schema) Validate(args json.RawMessage) error {
	value, err := decodeArguments(args)
	if err != nil {
		return err
	}
	if s == nil || s.compiled == nil {
		return nil
	}
	err = s.compiled.Validate(value)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return fmt.Errorf("the arguments could not be checked: %v", err)
	}
	return errors.New("the arguments do not match the tool's parameters: " + describeProblems(verr) + ".")
}

// decodeArguments parses the arguments as the validator wants them
// (numbers as json.Number) and checks that they are an object.
func decodeArguments(args json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		return map[string]any{}, nil
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, errors.New("the arguments are not valid JSON; send a JSON object")
	}
	if _, ok := value.(map[string]any); !ok {
		return nil, fmt.Errorf("the arguments must be a JSON object, not %s", jsonKind(value))
	}
	return value, nil
}

// jsonKind names the JSON type of a decoded value, with its article.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// describeProblems names the first few places where the value breaks the
// schema: the deepest errors of the tree, "at /path: what is wrong".
func describeProblems(verr *jsonschema.ValidationError) string {
	leaves := contract.Leaves(verr)
	if len(leaves) == 0 {
		leaves = []*jsonschema.ValidationError{verr}
	}
	var parts []string
	for _, leaf := range leaves {
		if len(parts) == maxReportedProblems {
			parts = append(parts, fmt.Sprintf("and %d more", len(leaves)-maxReportedProblems))
			break
		}
		parts = append(parts, "at "+instancePath(leaf.InstanceLocation)+": "+leaf.ErrorKind.LocalizedString(schemaPrinter))
	}
	return strings.Join(parts, "; ")
}

// instancePath is a JSON Pointer into the arguments, or "the top level".
func instancePath(location []string) string {
	if len(location) == 0 {
		return "the top level"
	}
	return contract.Pointer(location)
}
