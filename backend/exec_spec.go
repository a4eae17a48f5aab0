package backend

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/harnest/harnest/config"
)

// This file is what both exec modes, turn (Exec) and worker (Workers), make
// of their config section: the program to run and how.

// Fallbacks for the minimal environment when the server has none.
const (
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
	defaultLang = "C.UTF-8"
)

// execSpec is what both exec modes make of their config section: the
// program, its arguments, working directory, environment and timeout.
type execSpec struct {
	program string
	args    []string
	dir     string
	env     []string
	timeout time.Duration
}

// newExecSpec checks and resolves an exec config section against the agent
// folder.
func newExecSpec(cfg config.ExecBackend, folderDir string) (execSpec, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return execSpec{}, errors.New("exec backend: command is empty; give the program and its arguments as a list")
	}
	if cfg.TimeoutSeconds < 0 {
		return execSpec{}, fmt.Errorf("exec backend: timeoutSeconds is %d; it must be 0 (no timeout) or more", cfg.TimeoutSeconds)
	}

	folder, err := filepath.Abs(folderDir)
	if err != nil {
		return execSpec{}, fmt.Errorf("exec backend: agent folder %q: %w", folderDir, err)
	}

	program, err := resolveProgram(cfg.Command[0], folder)
	if err != nil {
		return execSpec{}, err
	}

	dir := folder
	if cfg.Dir != "" {
		dir = cfg.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(folder, dir)
		}
	}
	info, err := os.Stat(dir)
	if err != nil {
		return execSpec{}, fmt.Errorf("exec backend: working directory: %w", err)
	}
	if !info.IsDir() {
		return execSpec{}, fmt.Errorf("exec backend: working directory %s is not a directory", dir)
	}

	return execSpec{
		program: program,
		args:    cfg.Command[1:],
		dir:     dir,
		env:     baseEnv(cfg.Env),
		timeout: time.Duration(cfg.TimeoutSeconds) * time.Second,
	}, nil
}

// resolveProgram finds the program to run: relative to the agent folder if
// name holds a path separator, in PATH otherwise.
func resolveProgram(name, folder string) (string, error) {
	if !strings.ContainsRune(name, filepath.Separator) {
		path, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("exec backend: program %q not found in PATH: %w", name, err)
		}
		return path, nil
	}

	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(folder, path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("exec backend: program: %w", err)
	}
	if info.IsDir() {
		return "", fmt.Errorf("exec backend: program %s is a directory", path)
	}
	return path, nil
}

// baseEnv is the environment every turn starts from: PATH, HOME and LANG
// from the server, then the configured variables in name order. The
// server's other variables are not passed on: they may hold secrets.
func baseEnv(extra map[string]string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = defaultLang
	}
	env := []string{"PATH=" + path, "LANG=" + lang}
	if home := os.Getenv("HOME"); home != "" {
		env = append(env, "HOME="+home)
	}

	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		env = append(env, name+"="+extra[name])
	}
	return env
}
