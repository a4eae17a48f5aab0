package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/runtime"
)

// fakeRelay is the relay as ForFolder sees it: it records the section
// each relay agent was built with.
type fakeRelay struct{ sections []config.RelayBackend }

func (r *fakeRelay) IsOwner(string) bool                                   { return false }
func (r *fakeRelay) HandOff(context.Context, string, string, string) error { return nil }
func (r *fakeRelay) Connected(context.Context, config.RelayBackend, string) (bool, error) {
	return false, nil
}
func (r *fakeRelay) AgentWith(b config.RelayBackend) runtime.Agent {
	r.sections = append(r.sections, b)
	return NewEcho(config.EchoBackend{})
}

func folderWith(b config.Backend) *config.Folder {
	f := &config.Folder{Dir: "."}
	f.Config.Spec.Backend = b
	return f
}

// The relay backend (spec.backend.relay) is built by ForFolder like every
// other agent, from the relay in Parts and the folder's own section.
func TestForFolderBuildsTheRelayBackend(t *testing.T) {
	rl := &fakeRelay{}
	section := config.RelayBackend{Name: "laptop", Kind: "codex", DeadlineSeconds: 30}
	agent, err := ForFolder(context.Background(), folderWith(config.Backend{Relay: &section}), nil, Parts{Relay: rl})
	if err != nil || agent == nil {
		t.Fatalf("ForFolder with spec.backend.relay: %v, %v", agent, err)
	}
	if len(rl.sections) != 1 || rl.sections[0] != section {
		t.Fatalf("the relay agent was built with %+v, want the folder's section %+v once", rl.sections, section)
	}
	if _, err := ForFolder(context.Background(), folderWith(config.Backend{Relay: &section}), nil, Parts{}); err == nil ||
		!strings.Contains(err.Error(), "needs the relay") {
		t.Fatalf("ForFolder with spec.backend.relay and no relay: %v, want an error naming the relay", err)
	}
}

// One check refuses two backends, whichever they are, the relay among
// them.
func TestForFolderRefusesTwoBackends(t *testing.T) {
	relay := &config.RelayBackend{}
	for name, b := range map[string]config.Backend{
		"relay and echo":  {Relay: relay, Echo: &config.EchoBackend{}},
		"relay and model": {Relay: relay, Model: &config.ModelBackend{}},
		"echo and exec":   {Echo: &config.EchoBackend{}, Exec: &config.ExecBackend{}},
	} {
		rl := &fakeRelay{}
		_, err := ForFolder(context.Background(), folderWith(b), nil, Parts{Relay: rl})
		if err == nil || !strings.Contains(err.Error(), "2 backends are set under spec.backend; choose exactly one") {
			t.Errorf("%s: %v, want the one exactly-one-backend error", name, err)
		}
		if len(rl.sections) != 0 {
			t.Errorf("%s: a relay agent was built although two backends are set", name)
		}
	}
}
