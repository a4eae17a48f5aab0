package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const examplePath = "../config.yaml.example"

// TestExampleLoads checks that config.yaml.example is a valid config.yaml
// whose values are the defaults.
func TestExampleLoads(t *testing.T) {
	example, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	f := mustLoad(t, writeFolder(t, string(example), minimalCard, minimalInstructions), nil)

	want := Config{
		APIVersion: APIVersion,
		Kind:       Kind,
		Metadata:   Metadata{Name: "my-agent"},
		Spec:       Spec{Backend: Backend{Echo: &EchoBackend{}}},
	}
	want.ApplyDefaults()
	if !reflect.DeepEqual(f.Config, want) {
		t.Errorf("example does not hold the defaults:\ngot  %+v\nwant %+v", f.Config, want)
	}
}

// TestExampleDocumentsEveryKey checks that every yaml key of Config appears
// in config.yaml.example, set or in a comment.
func TestExampleDocumentsEveryKey(t *testing.T) {
	example, err := os.ReadFile(filepath.Clean(examplePath))
	if err != nil {
		t.Fatal(err)
	}
	text := string(example)
	for _, key := range yamlKeys(reflect.TypeFor[Config]()) {
		if !strings.Contains(text, key+":") {
			t.Errorf("config.yaml.example does not document %q", key)
		}
	}
	if !strings.Contains(text, "${HARNEST_TOKEN}") {
		t.Errorf("config.yaml.example should show a token read from ${HARNEST_TOKEN}")
	}
}

// yamlKeys lists the yaml names of t's fields, recursively.
func yamlKeys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	fields, names := yamlFields(t)
	var keys []string
	for _, name := range names {
		keys = append(keys, name)
		keys = append(keys, yamlKeys(t.Field(fields[name]).Type)...)
	}
	return keys
}
