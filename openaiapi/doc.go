// Package openaiapi serves the agent as an OpenAI-compatible model
// (server.openaiCompat): GET /v1/models and POST /v1/chat/completions.
package openaiapi
