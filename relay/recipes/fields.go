package recipes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/harnest/harnest/relay/text"
)

// recipeFields collects the problems of one recipe, each naming its field
// by its dotted path ("evidence.status: ...").
type recipeFields struct {
	problems []string
}

// add records a problem of the field at path.
func (f *recipeFields) add(path, format string, args ...any) {
	f.problems = append(f.problems, path+": "+fmt.Sprintf(format, args...))
}

// join is the path of key inside the object at prefix.
func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// only rejects the members of obj (at prefix) not in allowed.
func (f *recipeFields) only(obj map[string]json.RawMessage, prefix string, allowed ...string) {
	var unknown []string
	for k := range obj {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		f.add(join(prefix, clipText(k, 40)), "is not a recipe field (unknown fields are rejected)")
	}
}

// member returns obj[key], recording a problem when it is missing.
func (f *recipeFields) member(obj map[string]json.RawMessage, prefix, key string) (json.RawMessage, bool) {
	raw, ok := obj[key]
	if !ok {
		f.add(join(prefix, key), "is required")
	}
	return raw, ok
}

// decode reads the required obj[key] with read, which decodes it and
// says whether it is what the member must be (want: "a string"); when it
// is not, the problem says so.
func (f *recipeFields) decode(obj map[string]json.RawMessage, prefix, key, want string, read func(raw json.RawMessage) bool) bool {
	raw, ok := f.member(obj, prefix, key)
	if !ok {
		return false
	}
	if !read(raw) {
		f.add(join(prefix, key), "must be %s, not %s", want, describe(raw))
		return false
	}
	return true
}

// text decodes the required string obj[key] into dst.
func (f *recipeFields) text(obj map[string]json.RawMessage, prefix, key string, dst *string) bool {
	return f.decode(obj, prefix, key, "a string", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, dst) == nil && raw[0] == '"'
	})
}

// whole decodes the required whole number obj[key] into dst.
func (f *recipeFields) whole(obj map[string]json.RawMessage, prefix, key string, dst *int) bool {
	return f.decode(obj, prefix, key, "a whole number", func(raw json.RawMessage) bool {
		return json.NewDecoder(bytes.NewReader(raw)).Decode(dst) == nil && string(raw) != "null"
	})
}

// flag decodes the required boolean obj[key] into dst.
func (f *recipeFields) flag(obj map[string]json.RawMessage, prefix, key string, dst *bool) bool {
	return f.decode(obj, prefix, key, "true or false", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, dst) == nil && (string(raw) == "true" || string(raw) == "false")
	})
}

// strings decodes the required list of strings obj[key] into dst.
func (f *recipeFields) strings(obj map[string]json.RawMessage, prefix, key string, dst *[]string) bool {
	return f.decode(obj, prefix, key, "a list of strings", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, dst) == nil && raw[0] == '['
	})
}

// object decodes the required object obj[key].
func (f *recipeFields) object(obj map[string]json.RawMessage, prefix, key string) (map[string]json.RawMessage, bool) {
	var sub map[string]json.RawMessage
	ok := f.decode(obj, prefix, key, "an object", func(raw json.RawMessage) bool {
		return json.Unmarshal(raw, &sub) == nil && sub != nil
	})
	if !ok {
		return nil, false
	}
	return sub, true
}

// section decodes the required object obj[key] and checks that it has
// only these members.
func (f *recipeFields) section(obj map[string]json.RawMessage, prefix, key string, members ...string) (map[string]json.RawMessage, bool) {
	sub, ok := f.object(obj, prefix, key)
	if ok {
		f.only(sub, join(prefix, key), members...)
	}
	return sub, ok
}

// prose checks reviewed prose: nonblank plain text of at most max
// characters.
func (f *recipeFields) prose(path, s string, max int) {
	if text.Plain(s, max, "text") != "" {
		f.add(path, "must be nonblank plain text of at most %d characters", max)
	}
}

// oneOf checks that s is one of values.
func (f *recipeFields) oneOf(path, s string, values []string) {
	if !slices.Contains(values, s) {
		f.add(path, "is %q; it must be one of %s", clipText(s, 40), quoteList(values))
	}
}

func (f *recipeFields) pairing(top map[string]json.RawMessage, rc *Recipe) {
	obj, ok := f.section(top, "", "pairing", "instruction_id")
	if !ok {
		return
	}
	if f.text(obj, "pairing", "instruction_id", &rc.Pairing.InstructionID) {
		f.oneOf("pairing.instruction_id", rc.Pairing.InstructionID, recipeInstructions)
	}
}

func (f *recipeFields) card(top map[string]json.RawMessage, rc *Recipe) {
	obj, ok := f.section(top, "", "card", "mapping")
	if !ok {
		return
	}
	mapping, ok := f.section(obj, "card", "mapping", "name", "kind", "skills")
	if !ok {
		return
	}
	rc.Card.Mapping = map[string]string{}
	for _, key := range []string{"name", "kind", "skills"} {
		var v string
		if f.text(mapping, "card.mapping", key, &v) {
			if want := recipeMapping[key]; v != want {
				f.add("card.mapping."+key, "must be %q", want)
			}
			rc.Card.Mapping[key] = v
		}
	}
}

func (f *recipeFields) stageWords(top map[string]json.RawMessage, rc *Recipe) {
	obj, ok := f.section(top, "", "stage_words", "connected", "unavailable", "hosted")
	if !ok {
		return
	}
	w := &rc.StageWords
	if f.text(obj, "stage_words", "connected", &w.Connected) && w.Connected != stageConnected {
		f.add("stage_words.connected", "must be %q", stageConnected)
	}
	if f.text(obj, "stage_words", "unavailable", &w.Unavailable) {
		f.prose("stage_words.unavailable", w.Unavailable, 160)
	}
	if _, ok := obj["hosted"]; ok && f.text(obj, "stage_words", "hosted", &w.Hosted) {
		f.prose("stage_words.hosted", w.Hosted, 160)
	}
}

func (f *recipeFields) evidence(top map[string]json.RawMessage, rc *Recipe) {
	obj, ok := f.section(top, "", "evidence", "checked_on", "status", "measured_by")
	if !ok {
		return
	}
	e := &rc.Evidence
	if f.text(obj, "evidence", "checked_on", &e.CheckedOn) && !validDate(e.CheckedOn) {
		f.add("evidence.checked_on", "is %q; it must be a real date as YYYY-MM-DD", clipText(e.CheckedOn, 20))
	}
	if f.text(obj, "evidence", "status", &e.Status) {
		f.oneOf("evidence.status", e.Status, recipeStatuses)
	}
	if _, ok := obj["measured_by"]; ok && f.text(obj, "evidence", "measured_by", &e.MeasuredBy) {
		if len(e.MeasuredBy) > 200 || !measuredByPattern.MatchString(e.MeasuredBy) {
			f.add("evidence.measured_by", "must be the measured command, then \" --help sha256 \" and the 64-character lowercase hex digest of its --help output")
		}
	}
}

func (f *recipeFields) contract(top map[string]json.RawMessage, rc *Recipe) {
	obj, ok := f.section(top, "", "contract", "version", "operations", "cancellation", "resume")
	if !ok {
		return
	}
	c := &rc.Contract
	if f.whole(obj, "contract", "version", &c.Version) && c.Version != 1 {
		f.add("contract.version", "must be 1")
	}
	if f.strings(obj, "contract", "operations", &c.Operations) {
		seen := map[string]bool{}
		for _, op := range c.Operations {
			if seen[op] {
				f.add("contract.operations", "lists %q twice; each operation may appear at most once", clipText(op, 40))
			}
			seen[op] = true
			f.oneOf("contract.operations", op, recipeOperations)
		}
		if c.Operations == nil {
			c.Operations = []string{}
		}
	}
	f.flag(obj, "contract", "cancellation", &c.Cancellation)
	f.flag(obj, "contract", "resume", &c.Resume)
}

func (f *recipeFields) hosted(top map[string]json.RawMessage, rc *Recipe) {
	if _, ok := top["hosted"]; !ok {
		return
	}
	obj, ok := f.section(top, "", "hosted", "adapter", "tools", "environment")
	if !ok {
		return
	}
	h := &Hosted{}
	if f.text(obj, "hosted", "adapter", &h.Adapter) && strings.TrimSpace(h.Adapter) == "" {
		f.add("hosted.adapter", "must name the adapter")
	}
	if f.strings(obj, "hosted", "tools", &h.Tools) {
		for _, tool := range h.Tools {
			if strings.TrimSpace(tool) == "" {
				f.add("hosted.tools", "must list tool names, not blank strings")
			}
		}
	}
	if f.text(obj, "hosted", "environment", &h.Environment) && strings.TrimSpace(h.Environment) == "" {
		f.add("hosted.environment", "must name the environment")
	}
	rc.Hosted = h
}
