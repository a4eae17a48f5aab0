package config

import "time"

// APIVersion and Kind are the only values config.yaml accepts for its
// header fields.
const (
	APIVersion = "harnest.dev/v1alpha1"
	Kind       = "Agent"
)

// Defaults of the server section, as the reference implementation has them.
const (
	DefaultHost                  = "127.0.0.1"
	DefaultPort                  = 1907
	DefaultRequestTimeoutSeconds = 300
	DefaultMaxConcurrentRequests = 8
	DefaultMaxQueuedRequests     = 1000
	DefaultMaxTurnsPerUser       = 64
	DefaultBodyTimeoutSeconds    = 60
	DefaultStoreTimeoutSeconds   = 2
	DefaultMaxRequestBytes       = 1 << 20
	DefaultKeyPrefix             = "harnest:"
	DefaultReceiptTTLSeconds     = 86400
	DefaultLeaseSeconds          = 30
	DefaultLivenessSeconds       = 3
	DefaultMaxAttempts           = 3
	DefaultTranscriptTTLSeconds  = 0 // 0 keeps sessions and transcripts until deleted
)

// Folder is a loaded agent folder: its config, its agent card and its
// instructions, with defaults applied and environment references resolved.
type Folder struct {
	Dir          string
	Config       Config
	Card         map[string]any // agent-card.yaml as a JSON-ready value
	ExtendedCard map[string]any // agent-card.extended.yaml laid over Card; nil without the file
	Instructions string
}

// Config is config.yaml.
type Config struct {
	APIVersion string   `yaml:"apiVersion"`
	Kind       string   `yaml:"kind"`
	Metadata   Metadata `yaml:"metadata"`
	Spec       Spec     `yaml:"spec"`
	Server     Server   `yaml:"server"`
	Auth       Auth     `yaml:"auth"`
	Store      Store    `yaml:"store"`
}

// Metadata names the agent.
type Metadata struct {
	Name        string `yaml:"name"` // DNS label: ^[a-z][a-z0-9-]{0,62}$
	DisplayName string `yaml:"displayName"`
}

// Spec says what the agent is.
type Spec struct {
	Backend Backend `yaml:"backend"`
	// Output is the output policy: what of the agent's activity callers see.
	Output Output `yaml:"output"`
	// Instructions is the file of the model's system prompt, relative to
	// the folder (default instructions.md).
	Instructions string `yaml:"instructions"`
	// Tools, MCPServers and ClientTools are what a model backend may call.
	Tools       []Tool       `yaml:"tools"`
	MCPServers  []MCPServer  `yaml:"mcpServers"`
	ClientTools []ClientTool `yaml:"clientTools"`
	// Relay is what the relay offers paired outside agents (tools at home).
	Relay RelaySpec `yaml:"relay"`
	// OnReplicaLoss is what becomes of a background turn whose replica is
	// lost (killed, frozen past its liveness): "fail" (the default, but for
	// the model, a2a and relay backends) records it failed with
	// replica_lost; "rerun" (their default) runs it again from its input on the replica
	// that claims it, with the next attempt number, replaying the steps
	// the lost attempt recorded (resume points, runtime/journal.go).
	OnReplicaLoss string `yaml:"onReplicaLoss"`
	// OnBusy is what becomes of a message sent to a session while a
	// response runs or waits, when the message does not say (runtime/busy.go):
	// "reject" (the default: 409 session_busy), "enqueue", "interrupt" or
	// "rollback".
	OnBusy string `yaml:"onBusy"`
	// InputSchema and OutputSchema are the agent's typed contract
	// (contract.go): JSON Schemas written inline (a mapping) or the name of
	// a JSON or YAML file beside config.yaml (a string). With an input
	// schema, input must be an object that matches it; with an output
	// schema, the answer is a JSON value that matches it, carried in the
	// receipt's result.
	InputSchema  JSONValue `yaml:"inputSchema"`
	OutputSchema JSONValue `yaml:"outputSchema"`
	// Memory is the agent's long-term memory (memory.go).
	Memory Memory `yaml:"memory"`
}

// Output is the output policy, applied once before any transport sees an
// event.
type Output struct {
	// Thinking shows thinking deltas (hidden by default: providers' reasoning
	// is opt-in).
	Thinking bool `yaml:"thinking"`
	// ToolActivity shows tool calls and results (default true).
	ToolActivity *bool `yaml:"toolActivity"`
	// AgentMetadata is "normalized" (default), "suppress" (no metadata events
	// and no usage) or "raw" (adds the provider's own fields).
	AgentMetadata string `yaml:"agentMetadata"`
}

// Backend holds exactly one backend section.
type Backend struct {
	Echo   *EchoBackend   `yaml:"echo"`
	Exec   *ExecBackend   `yaml:"exec"`
	Relay  *RelayBackend  `yaml:"relay"`
	Model  *ModelBackend  `yaml:"model"`
	A2A    *A2ABackend    `yaml:"a2a"`
	Router *RouterBackend `yaml:"router"`
}

// A2ABackend is a remote A2A agent as the backend: harnest reads its card,
// sends each turn as a message and keeps the remote context per session.
type A2ABackend struct {
	// URL is the agent card's host (its /.well-known/agent-card.json is
	// read) or the card's URL itself.
	URL   string `yaml:"url"`
	Token string `yaml:"token"` // optional bearer token; never logged or printed
	// TimeoutSeconds bounds one turn's exchange with the remote agent
	// (default 120).
	TimeoutSeconds float64 `yaml:"timeoutSeconds"`
	// AllowHosts are private or loopback hosts (host or host:port) the
	// backend may reach besides public https ones; plain http only to a
	// listed loopback host.
	AllowHosts []string `yaml:"allowHosts"`
}

// RelayBackend hands turns to an outside agent that paired with this
// server and long-polls its inbox (relay-poll-v1).
type RelayBackend struct {
	// Name and Kind pick the participant that answers; empty means any
	// active participant.
	Name string `yaml:"name"`
	Kind string `yaml:"kind"`
	// DeadlineSeconds is how long the outside agent has to answer
	// (default 60, at most 60).
	DeadlineSeconds int `yaml:"deadlineSeconds"`
	// AllowVisitors lets users other than the owner reach the outside
	// agent, at most VisitorDailyCap turns a day for the agent.
	AllowVisitors   bool `yaml:"allowVisitors"`
	VisitorDailyCap int  `yaml:"visitorDailyCap"`
}

// EchoBackend is the built-in deterministic agent. Its options make it a test
// double for every client.
type EchoBackend struct {
	Thinking bool `yaml:"thinking"` // add a thinking delta
	ToolCall bool `yaml:"toolCall"` // add a tool call and its result
	DelayMs  int  `yaml:"delayMs"`  // pause between events, 0..60000
	Fail     bool `yaml:"fail"`     // fail the turn after the first delta
	// Approval asks a human to approve this action before answering; a
	// denial means no answer.
	Approval string `yaml:"approval"`
	// ClientTool asks the client to run this tool and puts its output into
	// the answer.
	ClientTool string `yaml:"clientTool"`
}

// ExecBackend runs a local program, one process per turn.
type ExecBackend struct {
	Command        []string          `yaml:"command"` // argv, never a shell; relative paths are resolved against the agent folder
	Dir            string            `yaml:"dir"`     // working directory, relative to the agent folder; default the folder
	Env            map[string]string `yaml:"env"`     // extra environment variables
	TimeoutSeconds int               `yaml:"timeoutSeconds"`
	// Mode is "turn" (default: one process per turn, input on stdin, stdout
	// streamed as text) or "worker" (long-lived processes speaking the JSON
	// lines protocol of docs/worker-protocol.md).
	Mode string `yaml:"mode"`
	// Workers is how many worker processes run at once in worker mode
	// (default 1).
	Workers int `yaml:"workers"`
	// Resumes declares that the worker resumes a turn from its checkpoint
	// lines (worker mode only, docs/worker-protocol.md): its agent's turns
	// are then run again on replica loss (spec.onReplicaLoss defaults to
	// rerun), with the last checkpoint in the turn line.
	Resumes bool `yaml:"resumes"`
}

// Server is how the agent is served. Zero values are replaced by defaults
// when the folder is loaded; booleans that default to true are pointers so
// that an explicit false is kept.
type Server struct {
	HTTP       HTTP       `yaml:"http"`
	Limits     Limits     `yaml:"limits"`
	Playground Playground `yaml:"playground"`
	Live       bool       `yaml:"live"`
	// PublicBaseURL is the server's address as clients reach it
	// ("https://agents.example.com"), when it runs behind a proxy: the
	// served agent card's interface URLs use it.
	PublicBaseURL string `yaml:"publicBaseURL"`
	// AllowedOrigins are browser origins (scheme://host[:port]) besides the
	// server's own that may open /live and call the HTTP API (CORS).
	AllowedOrigins []string `yaml:"allowedOrigins"`
	OpenAPI        *bool    `yaml:"openapi"` // serve /openapi.json, /openapi.yaml, /docs; default true (use Enabled)
	AGUI           *bool    `yaml:"agui"`    // serve POST /agui; default true (use Enabled)
	// TLS serves HTTPS (and HTTP/2) with this certificate; the files are
	// read again on SIGHUP.
	TLS TLS `yaml:"tls"`
	// MCP serves the agent as an MCP server (Streamable HTTP) at /mcp:
	// one tool named after the agent (default false).
	MCP bool `yaml:"mcp"`
	// OpenAICompat serves the agent as an OpenAI-compatible model at
	// /v1/models and /v1/chat/completions (default false).
	OpenAICompat bool `yaml:"openaiCompat"`
	// OpenResponses serves the Open Responses API at /v1/responses (POST,
	// GET /v1/responses/{id}, cancel, input_items), with the same auth and
	// `model` naming the agent (default false).
	OpenResponses bool `yaml:"openResponses"`
	// UseChat serves the Vercel AI SDK's useChat endpoint at /api/chat
	// (the UI message stream protocol: POST, GET /api/chat/{id}/stream to
	// resume, POST /api/chat/{id}/stop), with the same auth (default
	// false).
	UseChat bool `yaml:"useChat"`
	// Metrics serves Prometheus metrics at GET /metrics (default true; use
	// Enabled): to the owners only when auth is on, unless MetricsPublic.
	Metrics       *bool `yaml:"metrics"`
	MetricsPublic bool  `yaml:"metricsPublic"` // anyone may read /metrics, also with auth on (default false)
	// Outbound is where push notifications and webhooks may be sent
	// (outbound.go).
	Outbound Outbound `yaml:"outbound"`
	// Schedules bound and time users' schedules (schedules.go).
	Schedules Schedules `yaml:"schedules"`
	// Triggers are named inbound triggers: signed webhooks at POST
	// /triggers/<name> (triggers.go).
	Triggers map[string]Trigger `yaml:"triggers"`
}

// HTTP is the listener and per-request policy.
type HTTP struct {
	Host                  string  `yaml:"host"`                  // default 127.0.0.1; other than 127.0.0.1, ::1, localhost needs AllowRemote
	Port                  int     `yaml:"port"`                  // 1..65535, default 1907
	AllowRemote           bool    `yaml:"allowRemote"`           // default false
	RequestTimeoutSeconds float64 `yaml:"requestTimeoutSeconds"` // >0 and ≤86400, default 300
	MaxConcurrentRequests int     `yaml:"maxConcurrentRequests"` // 1..100000, default 8
	// MaxQueuedRequests bounds the runs waiting for a slot, across all
	// users (1..1000000, default 1000); past it a turn is refused with 429.
	MaxQueuedRequests int `yaml:"maxQueuedRequests"`
	// BodyTimeoutSeconds is how long a client has to send a request body
	// once its headers arrived (>0 and ≤3600, default 60); a slower body is
	// cut off.
	BodyTimeoutSeconds float64 `yaml:"bodyTimeoutSeconds"`
}

// Limits bounds request sizes.
type Limits struct {
	// MaxRequestBytes accepts an integer or a size string such as "1MiB";
	// 1KiB..1GiB, default 1MiB. It bounds HTTP bodies and WebSocket frames.
	MaxRequestBytes ByteSize `yaml:"maxRequestBytes"`
	// MaxTurnsPerUser bounds one user's running and queued turns
	// (1..100000, default 64); past it the user's next turn is refused with
	// 429 and Retry-After, so no user can take every run slot and queue.
	MaxTurnsPerUser int `yaml:"maxTurnsPerUser"`
	// RequestsPerMinute bounds one user's HTTP requests per minute, counted
	// by every replica that shares the store (0..1000000, 0: no limit);
	// past it the user's requests get 429 and Retry-After.
	RequestsPerMinute int `yaml:"requestsPerMinute"`
	// TurnsPerDay bounds one user's new turns per UTC day on every
	// transport and replica (0..100000000, 0: no limit).
	TurnsPerDay int `yaml:"turnsPerDay"`
	// ConcurrentResponses bounds one user's responses in progress at once
	// on every transport and replica (0..100000, 0: no limit).
	ConcurrentResponses int `yaml:"concurrentResponses"`
	// TokensPerDay bounds one user's model tokens (input plus output) per
	// UTC day, and CostPerDay their cost in dollars, counted by every
	// replica from the turns' receipts (0: no limit); a user's new turns
	// are refused with 429 once the day's usage reached either.
	TokensPerDay int64   `yaml:"tokensPerDay"`
	CostPerDay   float64 `yaml:"costPerDay"`
}

// TLS names a certificate and its key, PEM files (relative paths resolve
// against the agent folder). Both or neither.
type TLS struct {
	CertFile string `yaml:"certFile"`
	KeyFile  string `yaml:"keyFile"`
}

// Enabled reports whether HTTPS is configured.
func (t TLS) Enabled() bool { return t.CertFile != "" }

// Playground toggles the browser playground.
type Playground struct {
	Enabled *bool `yaml:"enabled"` // default true (use Enabled)
}

// Auth maps bearer tokens to users.
type Auth struct {
	Tokens []Token  `yaml:"tokens"`
	JWT    *JWTAuth `yaml:"jwt"` // JWTs of an identity provider, beside the tokens (auth_jwt.go)
}

// Token is one bearer token and the user it stands for.
type Token struct {
	Token string `yaml:"token"` // non-empty and unique; never logged or printed
	User  string `yaml:"user"`  // non-empty user ID that owns everything the caller creates
	// Owner marks the agent's owner: only owners pair outside agents and
	// manage them. Without auth, the anonymous local user is the owner.
	Owner bool `yaml:"owner"`
}

// Store says where state lives.
type Store struct {
	Redis     Redis     `yaml:"redis"`
	KeyPrefix string    `yaml:"keyPrefix"` // prefix of every Redis key; default "harnest:"
	Retention Retention `yaml:"retention"`
	// LeaseSeconds is how long a response holds its session between
	// renewals (default 30): when a replica dies, its responses fail and
	// their sessions are free again after at most this long.
	LeaseSeconds int `yaml:"leaseSeconds"`
	// LivenessSeconds is the TTL of each replica's liveness record,
	// renewed every third of it (default 3): the turns of a replica that
	// stops renewing it are claimed by another after about this long.
	LivenessSeconds int `yaml:"livenessSeconds"`
	// MaxAttempts bounds the attempts of a turn whose replicas are lost,
	// counting the first run (default 3); past it the turn fails with
	// replica_lost.
	MaxAttempts int `yaml:"maxAttempts"`
}

// Redis is the connection to a real Redis. No URL means the embedded store.
type Redis struct {
	URL string `yaml:"url"` // redis://, rediss:// or unix:// URL; may hold a password, never print it
	// TimeoutSeconds bounds every Redis call: dial, read, write and the
	// wait for a pooled connection (>0 and ≤60, default 2). A Redis that
	// does not answer in time makes requests fail with 503 store_unavailable.
	TimeoutSeconds float64 `yaml:"timeoutSeconds"`
}

// Retention says how long state is kept.
type Retention struct {
	ReceiptsSeconds int `yaml:"receiptsSeconds"` // terminal receipts and their event logs; ≥0, 0 means 86400
}

// ByteSize is a byte count written as an integer or as "<n>B|KiB|MiB|GiB".
type ByteSize int64

// Enabled reports a default-true flag.
func Enabled(b *bool) bool { return b == nil || *b }

// BodyTimeout is how long a client has to send a request body.
func (h HTTP) BodyTimeout() time.Duration {
	return time.Duration(h.BodyTimeoutSeconds * float64(time.Second))
}

// Timeout bounds every Redis call.
func (r Redis) Timeout() time.Duration {
	return time.Duration(r.TimeoutSeconds * float64(time.Second))
}

// RequestTimeout is the per-response deadline.
func (h HTTP) RequestTimeout() time.Duration {
	return time.Duration(h.RequestTimeoutSeconds * float64(time.Second))
}
