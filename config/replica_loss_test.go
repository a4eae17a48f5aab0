package config

import "testing"

// The backends that resume from their journal (model, a2a, relay) are run
// again when their replica is lost unless told otherwise; the others fail.
func TestOnReplicaLossDefaults(t *testing.T) {
	cases := []struct {
		name    string
		backend Backend
		set     string
		want    string
	}{
		{"model", Backend{Model: &ModelBackend{}}, "", "rerun"},
		{"a2a", Backend{A2A: &A2ABackend{}}, "", "rerun"},
		{"relay", Backend{Relay: &RelayBackend{}}, "", "rerun"},
		{"echo", Backend{Echo: &EchoBackend{}}, "", "fail"},
		{"a2a told fail", Backend{A2A: &A2ABackend{}}, "fail", "fail"},
	}
	for _, c := range cases {
		var cfg Config
		cfg.Spec.Backend = c.backend
		cfg.Spec.OnReplicaLoss = c.set
		cfg.ApplyDefaults()
		if cfg.Spec.OnReplicaLoss != c.want {
			t.Errorf("%s: onReplicaLoss %q, want %q", c.name, cfg.Spec.OnReplicaLoss, c.want)
		}
	}
}
