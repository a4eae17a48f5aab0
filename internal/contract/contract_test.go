package contract

import (
	"encoding/json"
	"strings"
	"testing"
)

const personSchema = `{"type":"object","required":["name","age"],"additionalProperties":false,
 "properties":{"name":{"type":"string","minLength":1},"age":{"type":"integer","minimum":0},
 "tags":{"type":"array","items":{"type":"string"}}}}`

func TestCheckListsEveryViolationWithItsPointer(t *testing.T) {
	s, err := Compile("input schema", json.RawMessage(personSchema))
	if err != nil {
		t.Fatal(err)
	}
	if vs := s.Check(json.RawMessage(`{"name":"Ada","age":36,"tags":["x"]}`)); vs != nil {
		t.Fatalf("a valid value: %v", vs)
	}
	vs := s.Check(json.RawMessage(`{"name":"","age":-1,"tags":["x",2],"extra":true}`))
	var got []string
	for _, v := range vs {
		got = append(got, v.Pointer)
	}
	want := []string{"", "/age", "/name", "/tags/1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("pointers %q, want %q (%v)", got, want, vs)
	}
	if d := Describe(vs); !strings.Contains(d, "at /age: ") || !strings.Contains(d, "at the top level: ") {
		t.Fatalf("Describe: %s", d)
	}
	if vs := s.Check(json.RawMessage(`{`)); len(vs) != 1 || vs[0].Pointer != "" {
		t.Fatalf("not JSON: %v", vs)
	}
}

func TestCompileRefusesBadAndRemoteSchemas(t *testing.T) {
	for _, raw := range []string{`{`, `{"type":"nope"}`, `{"$ref":"https://example.com/s.json"}`} {
		if _, err := Compile("input schema", json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), "input schema") {
			t.Errorf("%s: err %v", raw, err)
		}
	}
}

func TestNewAndParseOutput(t *testing.T) {
	c, err := New(nil, nil)
	if c != nil || err != nil {
		t.Fatalf("no schemas: %v %v", c, err)
	}
	if c.InputSchema() != nil || c.OutputSchema() != nil {
		t.Fatal("a nil contract has schemas")
	}
	c, err = New(nil, json.RawMessage(`{"type":"object"}`))
	if err != nil || c.OutputSchema() == nil || c.InputSchema() != nil {
		t.Fatalf("output only: %v %v", c, err)
	}
	for text, want := range map[string]string{
		`{"a": 1}`:                 `{"a":1}`,
		"```json\n{\"a\": 1}\n```": `{"a":1}`,
		"  ```\n[1, 2]\n```  ":     `[1,2]`,
		"Here you go: {\"a\":1}":   "",
		"":                         "",
	} {
		got, ok := ParseOutput(text)
		if string(got) != want || ok != (want != "") {
			t.Errorf("ParseOutput(%q) = %s, %v; want %s", text, got, ok, want)
		}
	}
}
