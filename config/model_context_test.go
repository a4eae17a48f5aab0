package config

import (
	"strings"
	"testing"
)

// spec.backend.model.context: maxTokens is required and bounded,
// keepRecent defaults to 10.
func TestModelContext(t *testing.T) {
	folder := func(context string) string {
		return `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: my-agent
spec:
  backend:
    model:
      baseUrl: http://127.0.0.1:11434/v1
      model: m
      context: ` + context + "\n"
	}
	f, err := Load(writeFolder(t, folder(`{maxTokens: 8000, summaryModel: small}`), minimalCard, minimalInstructions))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Config.Spec.Backend.Model.Context
	if c == nil || c.MaxTokens != 8000 || c.SummaryModel != "small" || c.KeepRecent != DefaultModelKeepRecent {
		t.Errorf("context = %+v", c)
	}
	for _, tc := range []struct{ context, want string }{
		{`{summaryModel: small}`, "spec.backend.model.context.maxTokens"},
		{`{maxTokens: 100}`, "spec.backend.model.context.maxTokens"},
		{`{maxTokens: 8000, keepRecent: -1}`, "spec.backend.model.context.keepRecent"},
		{`{maxTokens: 8000, keep: 3}`, "keep"},
	} {
		_, err := Load(writeFolder(t, folder(tc.context), minimalCard, minimalInstructions))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("context %s: error %v, want one naming %s", tc.context, err, tc.want)
		}
	}
}
