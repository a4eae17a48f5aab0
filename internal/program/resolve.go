package program

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Resolve finds the program to run: relative to folder when name holds a
// path separator (an absolute name is taken as it is), in the server's
// PATH otherwise. The result is the path to start; an error says which
// program was not found and where it was looked for.
func Resolve(name, folder string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("program name is empty; give the program to run")
	}
	if !strings.ContainsRune(name, filepath.Separator) {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("program %q not found in PATH: %w", name, err)
		}
		return path, nil
	}

	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(folder, path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("program: %w", err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("program %s is a directory", path)
	}
	return path, nil
}
