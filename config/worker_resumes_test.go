package config

import (
	"strings"
	"testing"
)

// workerConfig is an agent whose backend is an exec worker with extra
// exec keys and spec lines.
func workerConfig(execExtra, specExtra string) string {
	return `apiVersion: harnest.dev/v1alpha1
kind: Agent
metadata:
  name: my-agent
spec:
  backend:
    exec:
      command: ["node", "worker.js"]
` + execExtra + specExtra
}

// A worker that resumes makes its agent rerun on replica loss unless the
// config says otherwise; one that does not keeps the default fail.
func TestWorkerThatResumesRerunsByDefault(t *testing.T) {
	for _, tc := range []struct {
		name, exec, spec, want string
	}{
		{"resumes", "      mode: worker\n      resumes: true\n", "", "rerun"},
		{"resumes, told to fail", "      mode: worker\n      resumes: true\n", "  onReplicaLoss: fail\n", "fail"},
		{"does not resume", "      mode: worker\n", "", "fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mustLoad(t, writeFolder(t, workerConfig(tc.exec, tc.spec), minimalCard, minimalInstructions), nil)
			if got := f.Config.Spec.OnReplicaLoss; got != tc.want {
				t.Errorf("onReplicaLoss = %q, want %q", got, tc.want)
			}
		})
	}
}

// resumes is a worker's: a turn program has no checkpoint lines.
func TestResumesNeedsWorkerMode(t *testing.T) {
	probs := mustProblems(t, writeFolder(t, workerConfig("      resumes: true\n", ""), minimalCard, minimalInstructions), nil)
	if msg := probs.Error(); !strings.Contains(msg, "spec.backend.exec.resumes: is for mode: worker") {
		t.Errorf("problems %q", msg)
	}
}
