package backend

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/program"
)

// This file is what both exec modes, turn (Exec) and worker (Workers), make
// of their config section: the program to run and how.

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

	path, err := program.Resolve(cfg.Command[0], folder)
	if err != nil {
		return execSpec{}, fmt.Errorf("exec backend: %w", err)
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
		program: path,
		args:    cfg.Command[1:],
		dir:     dir,
		env:     program.MinimalEnv(cfg.Env),
		timeout: time.Duration(cfg.TimeoutSeconds) * time.Second,
	}, nil
}
