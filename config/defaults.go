package config

import (
	"net"
	"strconv"
	"time"
)

// ApplyDefaults replaces zero values by their defaults. Load calls it; code
// that builds a Config by hand can call it too.
func (c *Config) ApplyDefaults() {
	h := &c.Server.HTTP
	if h.Host == "" {
		h.Host = DefaultHost
	}
	if h.Port == 0 {
		h.Port = DefaultPort
	}
	if h.RequestTimeoutSeconds == 0 {
		h.RequestTimeoutSeconds = DefaultRequestTimeoutSeconds
	}
	if h.MaxConcurrentRequests == 0 {
		h.MaxConcurrentRequests = DefaultMaxConcurrentRequests
	}
	if h.MaxQueuedRequests == 0 {
		h.MaxQueuedRequests = DefaultMaxQueuedRequests
	}
	if h.BodyTimeoutSeconds == 0 {
		h.BodyTimeoutSeconds = DefaultBodyTimeoutSeconds
	}
	if c.Server.Limits.MaxTurnsPerUser == 0 {
		c.Server.Limits.MaxTurnsPerUser = DefaultMaxTurnsPerUser
	}
	if c.Store.Redis.TimeoutSeconds == 0 {
		c.Store.Redis.TimeoutSeconds = DefaultStoreTimeoutSeconds
	}
	if c.Server.Limits.MaxRequestBytes == 0 {
		c.Server.Limits.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if m := c.Spec.Backend.Model; m != nil {
		m.applyDefaults()
	}
	if a := c.Spec.Backend.A2A; a != nil && a.TimeoutSeconds == 0 {
		a.TimeoutSeconds = DefaultA2ATimeoutSeconds
	}
	for i := range c.Spec.Tools {
		if e := c.Spec.Tools[i].Exec; e != nil && e.TimeoutSeconds == 0 {
			e.TimeoutSeconds = DefaultToolTimeoutSeconds
		}
	}
	for i := range c.Spec.MCPServers {
		if m := &c.Spec.MCPServers[i]; m.TimeoutSeconds == 0 {
			m.TimeoutSeconds = DefaultToolTimeoutSeconds
		}
	}
	c.Spec.Output.ToolActivity = defaultTrue(c.Spec.Output.ToolActivity)
	if c.Spec.Output.AgentMetadata == "" {
		c.Spec.Output.AgentMetadata = "normalized"
	}
	if c.Server.AllowedOrigins == nil {
		c.Server.AllowedOrigins = []string{}
	}
	c.Server.Playground.Enabled = defaultTrue(c.Server.Playground.Enabled)
	c.Server.OpenAPI = defaultTrue(c.Server.OpenAPI)
	c.Server.AGUI = defaultTrue(c.Server.AGUI)
	c.Server.Metrics = defaultTrue(c.Server.Metrics)
	c.Server.Schedules.defaults()
	applyTriggerDefaults(c.Server.Triggers)
	if c.Store.KeyPrefix == "" {
		c.Store.KeyPrefix = DefaultKeyPrefix
	}
	if c.Store.LeaseSeconds == 0 {
		c.Store.LeaseSeconds = DefaultLeaseSeconds
	}
	if c.Store.LivenessSeconds == 0 {
		c.Store.LivenessSeconds = min(DefaultLivenessSeconds, c.Store.LeaseSeconds)
	}
	if c.Store.MaxAttempts == 0 {
		c.Store.MaxAttempts = DefaultMaxAttempts
	}
	if c.Spec.OnReplicaLoss == "" {
		c.Spec.OnReplicaLoss = "fail"
		b := c.Spec.Backend
		if b.Model != nil || b.A2A != nil || b.Relay != nil {
			// These backends resume from their journal: the model backend
			// from its completed steps (backend/model_journal.go), the a2a
			// backend at its remote task (backend/a2aremote/resume.go), the
			// relay backend at its inbox item (relay/agent/resume.go):
			// nothing is asked or run twice.
			c.Spec.OnReplicaLoss = "rerun"
		}
		if e := c.Spec.Backend.Exec; e != nil && e.Resumes {
			// A worker that resumes continues from its last checkpoint
			// (backend/worker_checkpoint.go).
			c.Spec.OnReplicaLoss = "rerun"
		}
	}
	if c.Spec.OnBusy == "" {
		c.Spec.OnBusy = "reject"
	}
	if c.Store.Retention.ReceiptsSeconds == 0 {
		c.Store.Retention.ReceiptsSeconds = DefaultReceiptTTLSeconds
	}
}

func (m *ModelBackend) applyDefaults() {
	if m.TimeoutSeconds == 0 {
		m.TimeoutSeconds = DefaultModelTimeoutSeconds
	}
	if m.MaxSteps == 0 {
		m.MaxSteps = DefaultModelMaxSteps
	}
	if m.HistoryMessages == 0 {
		m.HistoryMessages = DefaultModelHistoryMessages
	}
	m.Context.applyDefaults()
}

func defaultTrue(b *bool) *bool {
	if b != nil {
		return b
	}
	t := true
	return &t
}

// Addr is the listen address, host and port joined ("[::1]:1907" for IPv6).
func (h HTTP) Addr() string {
	return net.JoinHostPort(h.Host, strconv.Itoa(h.Port))
}

// Receipts is how long terminal receipts and their event logs are kept.
func (r Retention) Receipts() time.Duration {
	return time.Duration(r.ReceiptsSeconds) * time.Second
}
