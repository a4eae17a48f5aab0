package memory

import (
	"strings"
	"testing"

	"github.com/harnest/harnest/config"
)

// A named key variable that is not set is refused at start, naming the
// variable (never a value).
func TestEmbedderNeedsItsKeyVariable(t *testing.T) {
	_, err := NewEmbedder(&config.Embeddings{URL: "http://127.0.0.1:9/v1", Model: "m", APIKeyEnv: "HARNEST_TEST_UNSET_EMBED_KEY"}, nil)
	if err == nil || !strings.Contains(err.Error(), "HARNEST_TEST_UNSET_EMBED_KEY") {
		t.Fatalf("NewEmbedder with an unset key variable: %v", err)
	}
	if e, err := NewEmbedder(nil, nil); e != nil || err != nil {
		t.Fatalf("no embeddings: %v %v", e, err)
	}
}
