package contract

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Contract is an agent's typed contract. A nil Input takes text and
// content parts as usual; a nil Output leaves answers as text. A nil
// *Contract has neither.
type Contract struct {
	Input  *Schema
	Output *Schema
}

// New compiles an agent's schemas; an empty one is not set. It returns
// nil when neither is.
func New(input, output json.RawMessage) (*Contract, error) {
	var c Contract
	var err error
	if len(input) > 0 {
		if c.Input, err = Compile("input schema", input); err != nil {
			return nil, err
		}
	}
	if len(output) > 0 {
		if c.Output, err = Compile("output schema", output); err != nil {
			return nil, err
		}
	}
	if c.Input == nil && c.Output == nil {
		return nil, nil
	}
	return &c, nil
}

// InputSchema is the input schema (nil without one, also on a nil
// Contract).
func (c *Contract) InputSchema() *Schema {
	if c == nil {
		return nil
	}
	return c.Input
}

// OutputSchema is the output schema (nil without one, also on a nil
// Contract).
func (c *Contract) OutputSchema() *Schema {
	if c == nil {
		return nil
	}
	return c.Output
}

// ParseOutput reads the JSON value of an answer's text: the text itself,
// or the body of one ```json fenced block around it (models add them).
// ok is false when the text holds no JSON value.
func ParseOutput(text string) (json.RawMessage, bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") && strings.HasSuffix(t, "```") && len(t) >= 6 {
		t = strings.TrimSpace(t[3 : len(t)-3])
		t = strings.TrimSpace(strings.TrimPrefix(t, "json"))
	}
	if t == "" || !json.Valid([]byte(t)) {
		return nil, false
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(t)) != nil {
		return nil, false
	}
	return b.Bytes(), true
}
