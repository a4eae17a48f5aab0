package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnest/harnest/internal/testutil/fakemodel"
)

// harnest init writes a folder that harnest check accepts and that serves
// a turn, for every template.
func TestInitTemplates(t *testing.T) {
	t.Parallel()
	fake := fakemodel.Start(t)
	fake.SetDefault(func(fakemodel.Request) fakemodel.Reply { return fakemodel.Reply{Text: "Hello from the model."} })
	for _, tt := range []struct {
		template, program, want string
	}{
		{"echo", "", "Echo: hi"},
		{"model", "", "Hello from the model."},
		{"worker-python", "python3", "You said: hi"},
		{"worker-node", "node", "You said: hi"},
	} {
		t.Run(tt.template, func(t *testing.T) {
			t.Parallel()
			if tt.program != "" {
				needProgram(t, tt.program)
			}
			dir := filepath.Join(t.TempDir(), "My Agent")
			code, out, errOut := runCmd(t, "init", dir, "--template", tt.template)
			if code != 0 || !strings.Contains(out, `wrote agent "my-agent"`) {
				t.Fatalf("init: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, _ := runCmd(t, "check", dir); code != 0 || !strings.Contains(out, `agent "my-agent" is valid`) {
				t.Fatalf("check: exit %d: %s", code, out)
			}
			h := startHarnest(t, dir, []string{"HARNEST_MODEL_URL=" + fake.URL})
			_, v := h.completeResponse(t, `{"input":"hi"}`)
			if got, _ := v["outputText"].(string); !strings.Contains(got, tt.want) {
				t.Errorf("answer %q, want it to contain %q", got, tt.want)
			}
			h.mustStop(t)
		})
	}
}

func TestInitRefusals(t *testing.T) {
	t.Parallel()
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"init"}, 2, "give the folder to create"},
		{[]string{"init", filepath.Join(t.TempDir(), "a"), "--template", "nope"}, 2, `unknown template "nope"`},
		{[]string{"init", full}, 1, "is not empty"},
	} {
		code, _, errOut := runCmd(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("harnest %v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, tt.code, tt.want)
		}
	}
}
