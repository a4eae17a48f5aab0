package toolrun

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

const weatherSchema = `{
	"type": "object",
	"properties": {
		"city": {"type": "string"},
		"days": {"type": "integer", "minimum": 1}
	},
	"required": ["city"]
}`

func weatherSet(t *testing.T) *Set {
	return openSet(t, Options{
		Tools: []config.Tool{{
			Name:       "weather",
			Parameters: config.JSONValue(weatherSchema),
			Exec:       &config.ToolExec{Command: []string{"cat"}},
		}},
		ClientTools: []config.ClientTool{{Name: "get_location", Parameters: config.JSONValue(weatherSchema)}},
	})
}

func TestValidate(t *testing.T) {
	s := weatherSet(t)
	cases := []struct {
		name, args string
		wantErr    string // "" for valid
	}{
		{"good", `{"city": "Paris", "days": 2}`, ""},
		{"wrong type", `{"city": 42}`, "at /city: got number, want string"},
		{"below minimum", `{"city": "Paris", "days": 0}`, "at /days:"},
		{"missing required", `{"days": 2}`, "at the top level: missing property 'city'"},
		{"not JSON", `{"city": `, "not valid JSON"},
		{"not an object", `["Paris"]`, "must be a JSON object, not an array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, tool := range []string{"weather", "get_location"} {
				err := s.Validate(tool, json.RawMessage(tc.args))
				if tc.wantErr == "" {
					if err != nil {
						t.Fatalf("Validate(%s) = %v; want nil", tool, err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Validate(%s) = %v; want an error containing %q", tool, err, tc.wantErr)
				}
			}
		})
	}
}

func TestValidateUnknownTool(t *testing.T) {
	s := weatherSet(t)
	if err := s.Validate("nope", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), `no tool named "nope"`) {
		t.Fatalf("Validate = %v; want a no-such-tool error", err)
	}
}

func TestCallValidatesFirstAndRefusesClientTools(t *testing.T) {
	s := weatherSet(t)
	res := call(t, s, "weather", `{"city": 42}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "at /city") {
		t.Fatalf("result = %s (IsError %v); want the validation sentence", res.Output, res.IsError)
	}
	res = call(t, s, "get_location", `{"city": "Paris"}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "runs on the client") {
		t.Fatalf("result = %s (IsError %v); want a client-tool error", res.Output, res.IsError)
	}
	res = call(t, s, "nope", `{}`)
	if !res.IsError || !strings.Contains(outputString(t, res), "no tool named") {
		t.Fatalf("result = %s (IsError %v); want an unknown-tool error", res.Output, res.IsError)
	}
}

func TestToolsListsExecThenClientWithDefaults(t *testing.T) {
	s := openSet(t, Options{
		Tools: []config.Tool{
			{Name: "b_exec", Description: "second", Approval: true, Exec: &config.ToolExec{Command: []string{"cat"}}},
			{Name: "a_exec", Exec: &config.ToolExec{Command: []string{"cat"}}},
		},
		ClientTools: []config.ClientTool{{Name: "client_one", Description: "on the client"}},
	})
	got := s.Tools()
	if len(got) != 3 || got[0].Name != "b_exec" || got[1].Name != "a_exec" || got[2].Name != "client_one" {
		t.Fatalf("Tools = %+v; want b_exec, a_exec, client_one", got)
	}
	if !got[0].Approval || got[0].Kind != KindExec || got[0].Description != "second" {
		t.Fatalf("b_exec = %+v", got[0])
	}
	if got[2].Kind != KindClient {
		t.Fatalf("client_one kind = %q", got[2].Kind)
	}
	if string(got[1].Parameters) != `{"type":"object","properties":{}}` {
		t.Fatalf("default parameters = %s", got[1].Parameters)
	}
}

func TestOpenFailsForASchemaThatDoesNotCompile(t *testing.T) {
	_, err := Open(context.Background(), Options{
		FolderDir: t.TempDir(),
		Tools: []config.Tool{{
			Name:       "bad",
			Parameters: config.JSONValue(`{"type": "object", "properties": {"a": {"type": "strange"}}}`),
			Exec:       &config.ToolExec{Command: []string{"cat"}},
		}},
	})
	if err == nil || !strings.Contains(err.Error(), "tool bad") {
		t.Fatalf("Open = %v; want an error naming the tool", err)
	}
}

func TestCompileSchemaRefusesReferencesToOtherDocuments(t *testing.T) {
	_, err := CompileSchema(json.RawMessage(`{"$ref": "file:///etc/passwd"}`))
	if err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Fatalf("CompileSchema = %v; want a refusal", err)
	}
}

func TestQualifiedName(t *testing.T) {
	cases := map[[2]string]string{
		{"files", "read"}:                "files__read",
		{"files", "read.file v2"}:        "files__read_file_v2",
		{"s", "ünïcode"}:                 "s___n_code",
		{"srv", strings.Repeat("x", 80)}: "srv__" + strings.Repeat("x", 59),
	}
	for in, want := range cases {
		if got := qualifiedName(in[0], in[1]); got != want {
			t.Errorf("qualifiedName(%q, %q) = %q; want %q", in[0], in[1], got, want)
		}
	}
}
