package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/harnest/harnest/examples"
)

// templates maps "harnest init --template" names to example folders.
var templates = map[string]string{
	"echo":          "hello",
	"model":         "chat",
	"worker-python": "worker-python",
	"worker-node":   "worker-node",
}

// nameOutside matches what a DNS label cannot hold.
var nameOutside = regexp.MustCompile(`[^a-z0-9-]+`)

// initFolder writes a working agent folder from a template.
func initFolder(args []string) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	template := fs.String("template", "echo", "echo, model, worker-python or worker-node")
	name := fs.String("name", "", "metadata.name of the agent (default: from the folder's name)")
	dir, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(args) == 0 || dir == "." && !hasPositional(fs, args) {
		fmt.Fprintln(os.Stderr, "harnest init: give the folder to create, such as: harnest init my-agent --template model")
		return 2
	}
	source, ok := templates[*template]
	if !ok {
		fmt.Fprintf(os.Stderr, "harnest init: unknown template %q; use echo, model, worker-python or worker-node\n", *template)
		return 2
	}
	agentName := *name
	if agentName == "" {
		agentName = labelOf(dir)
	}
	if err := writeTemplate(dir, source, agentName); err != nil {
		fmt.Fprintln(os.Stderr, "harnest init:", err)
		return 1
	}
	fmt.Printf("wrote agent %q (template %s) to %s\n", agentName, *template, dir)
	fmt.Printf("next: harnest check %s && harnest serve %s\n", dir, dir)
	return 0
}

// hasPositional reports whether args name a folder (not only flags).
func hasPositional(fs *flag.FlagSet, args []string) bool {
	for _, a := range args {
		if a == "." {
			return true
		}
	}
	return false
}

// labelOf makes a DNS label from a folder's name: "My Agent" → "my-agent".
func labelOf(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	label := strings.Trim(nameOutside.ReplaceAllString(strings.ToLower(filepath.Base(abs)), "-"), "-")
	if label == "" || label[0] < 'a' || label[0] > 'z' {
		label = "agent-" + label
	}
	return strings.TrimRight(label[:min(len(label), 63)], "-")
}

// writeTemplate copies an example folder to dir (which must not exist, or
// be empty) and names the agent in its config.yaml.
func writeTemplate(dir, source, agentName string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; give a new folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files, err := fs.Sub(examples.Folders, source)
	if err != nil {
		return err
	}
	return fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == "." {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(path))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(files, path)
		if err != nil {
			return err
		}
		if path == "config.yaml" {
			b = []byte(renameAgent(string(b), agentName))
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// renameAgent sets metadata.name in a config.yaml written like the
// examples' ("metadata:" then "  name: ...").
func renameAgent(config, name string) string {
	before, after, found := strings.Cut(config, "\nmetadata:\n  name: ")
	if !found {
		return config
	}
	_, rest, _ := strings.Cut(after, "\n")
	return before + "\nmetadata:\n  name: " + name + "\n" + rest
}
