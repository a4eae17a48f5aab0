package eval

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ToolCall is a tool call the agent made in a turn, as its
// response.tool_call event said.
type ToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// matches checks a call against an expected one; the reason says what
// differed.
func (spec CallSpec) matches(c ToolCall) (bool, string) {
	if c.Name != spec.Name {
		return false, fmt.Sprintf("%s is not %s", c.Name, spec.Name)
	}
	if len(spec.args) == 0 {
		return true, ""
	}
	var args map[string]any
	if len(c.Arguments) > 0 {
		if err := json.Unmarshal(c.Arguments, &args); err != nil {
			return false, fmt.Sprintf("%s's arguments are not a JSON object", c.Name)
		}
	}
	for _, m := range spec.args {
		if ok, why := m.match(args); !ok {
			return false, c.Name + ": " + why
		}
	}
	return true, ""
}

// checkTrajectory compares the turn's tool calls with the expected ones.
func checkTrajectory(t *Tools, calls []ToolCall) Check {
	c := Check{Kind: "tools." + t.Match, Passed: true}
	var why string
	switch t.Match {
	case MatchInOrder:
		c.Passed, why = inOrder(t.Calls, calls)
	case MatchAnyOrder:
		c.Passed, why = anyOrder(t.Calls, calls)
	default:
		c.Passed, why = exact(t.Calls, calls)
	}
	if !c.Passed {
		c.Detail = why + "; the calls were " + callNames(calls)
	}
	return c
}

// exact: the same calls, in the same order, and no others.
func exact(want []CallSpec, got []ToolCall) (bool, string) {
	for i, spec := range want {
		if i >= len(got) {
			return false, fmt.Sprintf("call %d (%s) was not made", i+1, spec.Name)
		}
		if ok, why := spec.matches(got[i]); !ok {
			return false, fmt.Sprintf("call %d: %s", i+1, why)
		}
	}
	if len(got) > len(want) {
		return false, fmt.Sprintf("%d calls more than the %d expected", len(got)-len(want), len(want))
	}
	return true, ""
}

// inOrder: the expected calls in this order, others between them allowed.
// Taking the earliest call that matches each is never worse than a later.
func inOrder(want []CallSpec, got []ToolCall) (bool, string) {
	next := 0
	for i, spec := range want {
		found := false
		for ; next < len(got) && !found; next++ {
			found, _ = spec.matches(got[next])
		}
		if !found {
			return false, fmt.Sprintf("expected call %d (%s) was not made after the ones before it%s", i+1, spec.Name, nearest(spec, got))
		}
	}
	return true, ""
}

// anyOrder: each expected call matched by a call of its own, in any order,
// others allowed (a bipartite matching: a later expected call may take a
// call an earlier one matched if that one can move to another).
func anyOrder(want []CallSpec, got []ToolCall) (bool, string) {
	owner := make([]int, len(got)) // the expected call a made call is given to, -1 for none
	for i := range owner {
		owner[i] = -1
	}
	var assign func(w int, seen []bool) bool
	assign = func(w int, seen []bool) bool {
		for g := range got {
			if seen[g] {
				continue
			}
			if ok, _ := want[w].matches(got[g]); !ok {
				continue
			}
			seen[g] = true
			if owner[g] < 0 || assign(owner[g], seen) {
				owner[g] = w
				return true
			}
		}
		return false
	}
	for w, spec := range want {
		if !assign(w, make([]bool, len(got))) {
			return false, fmt.Sprintf("expected call %d (%s) was not made (or not once more)%s", w+1, spec.Name, nearest(spec, got))
		}
	}
	return true, ""
}

// nearest says why the first call of the same name did not match, if
// there is one.
func nearest(spec CallSpec, got []ToolCall) string {
	for _, c := range got {
		if c.Name != spec.Name {
			continue
		}
		if ok, why := spec.matches(c); !ok {
			return " (" + why + ")"
		}
	}
	return ""
}

// callNames lists calls for a failure's detail.
func callNames(calls []ToolCall) string {
	if len(calls) == 0 {
		return "none"
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.Name + shorten(string(c.Arguments), 60)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
