package recipes

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/harnest/harnest/relay/text"
)

// Schema is the schema every recipe names: the same fields and rules
// as the outside agents' guide's netshow-harness-recipe-1.
const Schema = "harnest-recipe-1"

// Recipe is reviewed connection metadata for one kind of outside agent (a
// harness): how its owner connects it, what its stage says, how far it was
// measured and what it advertises. It is not a command to run, nor a
// permission. Its ID is the kind its pairing codes carry.
type Recipe struct {
	Schema     string     `json:"schema"`
	ID         string     `json:"id"`
	Revision   int        `json:"revision"`
	Label      string     `json:"label"`
	Transport  string     `json:"transport"`
	Connector  string     `json:"connector"`
	Pairing    Pairing    `json:"pairing"`
	Card       Card       `json:"card"`
	StageWords StageWords `json:"stage_words"`
	Evidence   Evidence   `json:"evidence"`
	Contract   Contract   `json:"contract"`
	Hosted     *Hosted    `json:"hosted,omitempty"`
}

// Pairing says how the owner pairs the harness.
type Pairing struct {
	// InstructionID is private-code-in-connector, review-before-connecting
	// or no-supported-door.
	InstructionID string `json:"instruction_id"`
}

// Card says how the harness's card is filled in.
type Card struct {
	// Mapping is fixed: name = owner_choice, kind = recipe_id, skills =
	// declared_skills.
	Mapping map[string]string `json:"mapping"`
}

// StageWords are the reviewed words the owner's stage shows.
type StageWords struct {
	Connected   string `json:"connected"`        // always "Home. Connected."
	Unavailable string `json:"unavailable"`      // up to 160 characters
	Hosted      string `json:"hosted,omitempty"` // only with a hosted variant
}

// Evidence is how far the recipe was measured.
type Evidence struct {
	CheckedOn string `json:"checked_on"` // YYYY-MM-DD
	// Status is ready, drafted, catalog-only or no-door.
	Status string `json:"status"`
	// MeasuredBy ("<command> --help sha256 <64 hex>") only on ready
	// recipes.
	MeasuredBy string `json:"measured_by,omitempty"`
}

// Contract is what the harness has shown it can do.
type Contract struct {
	Version      int      `json:"version"` // always 1
	Operations   []string `json:"operations"`
	Cancellation bool     `json:"cancellation"`
	Resume       bool     `json:"resume"`
}

// Hosted describes an optional hosted variant of the harness.
type Hosted struct {
	Adapter     string   `json:"adapter"`
	Tools       []string `json:"tools"`
	Environment string   `json:"environment"`
}

// Pairable reports whether codes may be created for the recipe: every
// recipe but one whose harness has no supported door.
func (rc Recipe) Pairable() bool { return rc.Pairing.InstructionID != instructionNoDoor }

// The values a recipe's fields are drawn from.
const (
	instructionPrivateCode = "private-code-in-connector"
	instructionNoDoor      = "no-supported-door"
	connectorNone          = "none"
	statusReady            = "ready"
	statusNoDoor           = "no-door"
	stageConnected         = "Home. Connected."
)

var (
	recipeConnectors   = []string{"harness-connector-echo", "harness-connector-exec", connectorNone}
	recipeInstructions = []string{instructionPrivateCode, "review-before-connecting", instructionNoDoor}
	recipeStatuses     = []string{statusReady, "drafted", "catalog-only", statusNoDoor}
	recipeOperations   = []string{"answer", "stream", "tools_at_home", "pieces", "browser_relay", "agent_computer", "stage_lines"}
	recipeMapping      = map[string]string{"name": "owner_choice", "kind": "recipe_id", "skills": "declared_skills"}
	measuredByPattern  = regexp.MustCompile(`^\S.* --help sha256 [0-9a-f]{64}$`)
)

// Parse decodes and validates one recipe file; fileID is its file
// name without ".json", which the recipe's id must match. Each problem
// names the field it is about ("evidence.status: ...").
func Parse(data []byte, fileID string) (Recipe, []string) {
	var rc Recipe
	top, problem := recipeObject(data)
	if problem != "" {
		return rc, []string{problem}
	}
	f := &recipeFields{}
	f.only(top, "", "schema", "id", "revision", "label", "transport", "connector", "pairing", "card",
		"stage_words", "evidence", "contract", "hosted")
	if f.text(top, "", "schema", &rc.Schema) && rc.Schema != Schema {
		f.add("schema", "must be %q", Schema)
	}
	if f.text(top, "", "id", &rc.ID) {
		if err := checkKind(rc.ID); err != "" {
			f.add("id", "%s", err)
		} else if rc.ID != fileID {
			f.add("id", "is %q but the file is %s.json: the id must match the file name", rc.ID, fileID)
		}
	}
	if f.whole(top, "", "revision", &rc.Revision) && (rc.Revision < 1 || rc.Revision > 1_000_000) {
		f.add("revision", "must be a whole number from 1 through 1,000,000")
	}
	if f.text(top, "", "label", &rc.Label) {
		f.prose("label", rc.Label, 60)
	}
	if f.text(top, "", "transport", &rc.Transport) && rc.Transport != "relay-poll-v1" {
		f.add("transport", "must be \"relay-poll-v1\"")
	}
	if f.text(top, "", "connector", &rc.Connector) {
		f.oneOf("connector", rc.Connector, recipeConnectors)
	}
	f.pairing(top, &rc)
	f.card(top, &rc)
	f.stageWords(top, &rc)
	f.evidence(top, &rc)
	f.contract(top, &rc)
	f.hosted(top, &rc)
	if len(f.problems) == 0 {
		f.crossRules(rc)
	}
	return rc, f.problems
}

// recipeObject decodes a recipe file's top-level JSON object.
func recipeObject(data []byte) (map[string]json.RawMessage, string) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, "the file must hold one JSON object (a recipe)"
	}
	return top, ""
}

// crossRules are the rules between fields, checked once each field is
// valid on its own.
func (f *recipeFields) crossRules(rc Recipe) {
	ready := rc.Evidence.Status == statusReady
	switch {
	case ready && rc.Connector == connectorNone:
		f.add("connector", "a ready recipe needs a real connector (harness-connector-echo or harness-connector-exec), not none")
	case !ready && rc.Connector != connectorNone:
		f.add("connector", "must be none: only a ready recipe (evidence.status ready) has a connector")
	}
	if ready && rc.Pairing.InstructionID != instructionPrivateCode {
		f.add("pairing.instruction_id", "a ready recipe pairs with private-code-in-connector")
	}
	if rc.Evidence.Status == statusNoDoor && rc.Pairing.InstructionID != instructionNoDoor {
		f.add("pairing.instruction_id", "a no-door recipe needs no-supported-door")
	}
	if !ready && rc.Evidence.MeasuredBy != "" {
		f.add("evidence.measured_by", "only a ready recipe may carry it")
	}
	if (rc.Hosted != nil) != (rc.StageWords.Hosted != "") {
		f.add("stage_words.hosted", "a recipe carries stage_words.hosted exactly when it has a hosted variant (hosted)")
	}
}

// validDate accepts a real calendar date in YYYY-MM-DD form.
func validDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}

// quoteList writes values as "a, b or c".
func quoteList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// checkKind applies the kind rules of pairing codes and cards; "" when
// kind follows them.
func checkKind(kind string) string {
	return strings.TrimPrefix(text.Kind(kind), "The kind ")
}

// describe names a JSON value's type for an error.
func describe(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "nothing"
	case s[0] == '"':
		return "a string"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "a list"
	case s == "true" || s == "false":
		return "a boolean"
	case s == "null":
		return "null"
	}
	return fmt.Sprintf("the number %s", clipText(s, 20))
}

// clipText shortens s to at most n bytes for an error.
func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
