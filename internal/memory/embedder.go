package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/jsonpost"
)

// Embedder asks an OpenAI-compatible endpoint for embeddings: POST
// {url}/embeddings with {"model", "input"}, reading data[0].embedding.
type Embedder struct {
	url    string
	model  string
	key    string
	client *http.Client
}

// embedTimeout bounds one call; maxEmbeddingBytes bounds its answer.
const (
	embedTimeout      = 30 * time.Second
	maxEmbeddingBytes = 8 << 20
)

// ErrEmbeddings is wrapped by every failure of the embeddings endpoint.
var ErrEmbeddings = errors.New("memory: the embeddings endpoint failed")

// NewEmbedder makes the embedder of spec.memory.embeddings (nil when it
// is not set). The key is read from the variable apiKeyEnv names; a
// variable that is named and not set is an error that names it.
func NewEmbedder(c *config.Embeddings, client *http.Client) (*Embedder, error) {
	if c == nil {
		return nil, nil
	}
	key := ""
	if c.APIKeyEnv != "" {
		if key = os.Getenv(c.APIKeyEnv); key == "" {
			return nil, fmt.Errorf("spec.memory.embeddings.apiKeyEnv: the environment variable %s is not set; set it to the endpoint's key", c.APIKeyEnv)
		}
	}
	if client == nil {
		client = &http.Client{Timeout: embedTimeout}
	}
	return &Embedder{url: strings.TrimRight(c.URL, "/") + "/embeddings", model: c.Model, key: key, client: client}, nil
}

// Embed returns the embedding of text.
func (e *Embedder) Embed(ctx context.Context, text string) ([]float32, error) {
	body, _ := json.Marshal(map[string]any{"model": e.model, "input": text})
	ans, err := jsonpost.Post(ctx, e.client, e.url, e.key, body, maxEmbeddingBytes)
	switch {
	case err == nil:
	case jsonpost.StepOf(err) == jsonpost.Send:
		return nil, fmt.Errorf("%w: %v", ErrEmbeddings, errors.Unwrap(errors.Unwrap(err))) // the cause, without the URL
	case jsonpost.StepOf(err) == jsonpost.Read:
		return nil, fmt.Errorf("%w: reading the answer: %v", ErrEmbeddings, err)
	default:
		return nil, fmt.Errorf("%w: %v", ErrEmbeddings, err)
	}
	if ans.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: it answered HTTP %d", ErrEmbeddings, ans.StatusCode)
	}
	var out struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(ans.Body, &out); err != nil || len(out.Data) == 0 || len(out.Data[0].Embedding) == 0 {
		return nil, fmt.Errorf("%w: the answer has no data[0].embedding", ErrEmbeddings)
	}
	return out.Data[0].Embedding, nil
}
