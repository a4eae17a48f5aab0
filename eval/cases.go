package eval

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/harnest/harnest/internal/contract"
	"gopkg.in/yaml.v3"
)

// A cases file (evals.yaml beside an agent's config.yaml, by convention):
//
//	judge:                      # optional: the judge model for rubrics
//	  baseUrl: http://127.0.0.1:11434/v1   # default: the agent's model backend
//	  model: qwen3:8b
//	  apiKey: ${OPENAI_API_KEY}
//	cases:
//	  - name: books a trip
//	    approvals: {send_reply: approve, "*": deny}   # per tool (action); "*" for any other
//	    clientTools: {get_location: "Lisbon"}          # a client tool's output
//	    turns:
//	      - input: "look it up, tool please"           # text, or a mapping for a typed agent
//	        expect:
//	          status: completed                        # the receipt's status (default completed)
//	          contains: ["lookup found"]               # a string or a list; all must occur
//	          notContains: ["error"]
//	          regex: "found [0-9]+ entries"
//	          equals: "..."                            # the whole answer, surrounding space trimmed
//	          schema: output.schema.yaml               # the typed result (or the answer as JSON)
//	          tools:
//	            match: inOrder                         # exact (default), inOrder or anyOrder
//	            calls:
//	              - name: lookup
//	                args: {query: {contains: tool}}    # per argument: a value (equals) or equals/contains/regex
//	          judge:
//	            rubric: The answer says how many entries were found.
//	            threshold: 0.7                         # the least score (0 to 1) that passes
//
// A case is one conversation, in one new session; its turns run in order.

// File is a loaded cases file.
type File struct {
	// Judge is the judge model's endpoint; nil: the agent's own model
	// backend, where one is configured.
	Judge *JudgeEndpoint `yaml:"judge" json:"judge,omitempty"`
	Cases []Case         `yaml:"cases" json:"cases"`
	// Path is where the file was read from; Dir its folder (schema file
	// names are read there).
	Path string `yaml:"-" json:"-"`
	Dir  string `yaml:"-" json:"-"`
}

// JudgeEndpoint is an OpenAI-compatible Chat Completions endpoint: POST
// {BaseURL}/chat/completions.
type JudgeEndpoint struct {
	BaseURL string `yaml:"baseUrl" json:"baseUrl"`
	Model   string `yaml:"model" json:"model"`
	// APIKey is sent as Authorization: Bearer (may be ${ENV}); never
	// printed or written to a report.
	APIKey string `yaml:"apiKey" json:"-"`
	// TimeoutSeconds bounds one judge call (default 60).
	TimeoutSeconds float64 `yaml:"timeoutSeconds" json:"-"`
}

// Case is one conversation with the agent.
type Case struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// User is the principal the turns run as (default "eval").
	User string `yaml:"user"`
	// Approvals answers the approvals the agent asks for, by the action
	// (the tool's name): "approve" or "deny"; "*" answers any other. An
	// approval the case does not answer fails the case.
	Approvals map[string]string `yaml:"approvals"`
	// ClientTools answers client tool requests by the tool's name with
	// the output given (any YAML value). A request the case does not
	// answer fails the case.
	ClientTools map[string]any `yaml:"clientTools"`
	Turns       []Turn         `yaml:"turns"`
}

// Turn is one input and what its answer must show.
type Turn struct {
	// Input is text, or a mapping (the typed input of an agent with an
	// input schema).
	Input  any    `yaml:"input"`
	Expect Expect `yaml:"expect"`

	input inputValue // Input, checked
}

// Expect is what a turn's answer must show. Every check given must pass.
type Expect struct {
	Status      string  `yaml:"status"`
	Contains    Strings `yaml:"contains"`
	NotContains Strings `yaml:"notContains"`
	Regex       Strings `yaml:"regex"`
	Equals      *string `yaml:"equals"`
	Schema      any     `yaml:"schema"`
	Tools       *Tools  `yaml:"tools"`
	Judge       *Rubric `yaml:"judge"`
	regexes     []*regexp.Regexp
	schema      *contract.Schema
}

// Tools is the tool trajectory a turn must show.
type Tools struct {
	// Match is how the calls compare with the turn's: "exact" (the same
	// calls in the same order, no others; the default), "inOrder" (these
	// calls in this order, others between them allowed) or "anyOrder"
	// (each of these calls, in any order, others allowed).
	Match string     `yaml:"match"`
	Calls []CallSpec `yaml:"calls"`
}

// Tool trajectory match modes.
const (
	MatchExact    = "exact"
	MatchInOrder  = "inOrder"
	MatchAnyOrder = "anyOrder"
)

// CallSpec is one expected tool call: its name and matchers for some of
// its arguments (by name, or by a JSON Pointer starting with "/").
type CallSpec struct {
	Name string         `yaml:"name"`
	Args map[string]any `yaml:"args"`
	args []argMatcher
}

// Rubric asks the judge model to score the answer.
type Rubric struct {
	Rubric string `yaml:"rubric"`
	// Threshold is the least score (0 to 1) that passes (default 0.7).
	Threshold *float64 `yaml:"threshold"`
}

// DefaultJudgeThreshold is the least judge score that passes when a
// rubric does not say.
const DefaultJudgeThreshold = 0.7

// Strings is a YAML string or list of strings.
type Strings []string

// UnmarshalYAML takes a scalar as a list of one.
func (s *Strings) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		var one string
		if err := n.Decode(&one); err != nil {
			return err
		}
		*s = Strings{one}
		return nil
	}
	var many []string
	if err := n.Decode(&many); err != nil {
		return fmt.Errorf("line %d: must be a string or a list of strings", n.Line)
	}
	*s = many
	return nil
}

// inputValue is a turn's input as the runtime takes it.
type inputValue struct {
	text  string
	typed json.RawMessage // an object input; nil for text
}
