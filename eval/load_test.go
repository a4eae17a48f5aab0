package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cases file with mistakes is refused with every problem, each naming
// its field; nothing runs.
func TestParseNamesEveryProblem(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"empty", "", []string{"(file): the file is empty"}},
		{"unknown key", "cases: [{name: a, turns: [{input: x, expect: {contain: y}}]}]", []string{"field contain not found"}},
		{"no cases", "cases: []", []string{"cases: must list at least one case"}},
		{"blank name and input", "cases: [{name: ' ', turns: [{input: '  '}]}]", []string{"cases[0].name: must name the case", "cases[0].turns[0].input: must not be blank"}},
		{"duplicate names", "cases: [{name: a, turns: [{input: x}]}, {name: a, turns: [{input: x}]}]", []string{`cases[1].name: "a" names another case too`}},
		{"no turns", "cases: [{name: a}]", []string{"cases[0].turns: must list at least one turn"}},
		{"missing input", "cases: [{name: a, turns: [{expect: {}}]}]", []string{"cases[0].turns[0].input: is required"}},
		{"list input", "cases: [{name: a, turns: [{input: [1]}]}]", []string{"cases[0].turns[0].input: must be text or a mapping"}},
		{"bad approval", "cases: [{name: a, approvals: {x: yes}, turns: [{input: x}]}]", []string{`cases[0].approvals.x: must be "approve" or "deny", got "yes"`}},
		{"bad status", "cases: [{name: a, turns: [{input: x, expect: {status: done}}]}]", []string{"cases[0].turns[0].expect.status: must be completed"}},
		{"bad regex", "cases: [{name: a, turns: [{input: x, expect: {regex: ['ok', '(']}}]}]", []string{"cases[0].turns[0].expect.regex[1]: does not compile"}},
		{"bad schema", "cases: [{name: a, turns: [{input: x, expect: {schema: {type: 12}}}]}]", []string{"cases[0].turns[0].expect.schema:"}},
		{"missing schema file", "cases: [{name: a, turns: [{input: x, expect: {schema: nope.json}}]}]", []string{"cases[0].turns[0].expect.schema: cannot read"}},
		{"bad match", "cases: [{name: a, turns: [{input: x, expect: {tools: {match: some}}}]}]", []string{"cases[0].turns[0].expect.tools.match: must be exact, inOrder or anyOrder"}},
		{"nameless call", "cases: [{name: a, turns: [{input: x, expect: {tools: {calls: [{args: {}}]}}}]}]", []string{"cases[0].turns[0].expect.tools.calls[0].name: must name the tool"}},
		{"bad arg regex", "cases: [{name: a, turns: [{input: x, expect: {tools: {calls: [{name: t, args: {q: {regex: '['}}}]}}}]}]", []string{"cases[0].turns[0].expect.tools.calls[0].args.q: regex does not compile"}},
		{"arg contains not text", "cases: [{name: a, turns: [{input: x, expect: {tools: {calls: [{name: t, args: {q: {contains: 3}}}]}}}]}]", []string{"args.q: contains must be a string"}},
		{"blank rubric", "cases: [{name: a, turns: [{input: x, expect: {judge: {rubric: ''}}}]}]", []string{"expect.judge.rubric: must say what the judge looks for"}},
		{"threshold out of range", "cases: [{name: a, turns: [{input: x, expect: {judge: {rubric: r, threshold: 2}}}]}]", []string{"expect.judge.threshold: must be between 0 and 1"}},
		{"judge without model", "judge: {baseUrl: ftp://x}\ncases: [{name: a, turns: [{input: x}]}]", []string{"judge.baseUrl: must be an http(s) URL", "judge.model: must name"}},
		{"judge key unset", "judge: {baseUrl: http://127.0.0.1:1/v1, model: m, apiKey: '${HARNEST_EVAL_TEST_UNSET}'}\ncases: [{name: a, turns: [{input: x}]}]", []string{"judge.apiKey: environment variable HARNEST_EVAL_TEST_UNSET is not set"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.yaml), t.TempDir())
			var probs *Problems
			if !errors.As(err, &probs) || f != nil {
				t.Fatalf("Parse = %v, %v; want problems", f, err)
			}
			text := strings.Join(probs.Lines, "\n")
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("problems do not say %q:\n%s", w, text)
				}
			}
		})
	}
}

// A good file loads with its defaults: status completed, match exact, a
// typed input as JSON, a schema read beside the file, ${ENV} resolved.
func TestLoadDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "out.schema.yaml"), []byte("type: object\nrequired: [a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HARNEST_EVAL_TEST_KEY", "k1")
	path := filepath.Join(dir, "evals.yaml")
	data := `judge: {baseUrl: "${HARNEST_EVAL_TEST_URL:-http://127.0.0.1:9/v1}", model: m, apiKey: "${HARNEST_EVAL_TEST_KEY}"}
cases:
  - name: typed
    turns:
      - input: {city: Lisbon, days: 2}
        expect:
          schema: out.schema.yaml
          contains: one
          tools: {calls: [{name: t, args: {n: 2, s: {contains: x}}}]}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	turn := f.Cases[0].Turns[0]
	if turn.input.text != `{"city":"Lisbon","days":2}` || string(turn.input.typed) != turn.input.text {
		t.Errorf("input = %+v", turn.input)
	}
	e := turn.Expect
	if e.Status != "completed" || e.Tools.Match != MatchExact || e.schema == nil || len(e.Contains) != 1 || len(e.Tools.Calls[0].args) != 2 {
		t.Errorf("expect = %+v", e)
	}
	if f.Judge.BaseURL != "http://127.0.0.1:9/v1" || f.Judge.APIKey != "k1" {
		t.Errorf("judge = %+v", f.Judge)
	}
}
