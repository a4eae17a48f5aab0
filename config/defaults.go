package config

import (
	"cmp"
	"net"
	"strconv"
	"time"
)

// ApplyDefaults replaces zero values by their defaults. Load calls it; code
// that builds a Config by hand can call it too.
func (c *Config) ApplyDefaults() {
	h := &c.Server.HTTP
	h.Host = cmp.Or(h.Host, DefaultHost)
	h.Port = cmp.Or(h.Port, DefaultPort)
	h.RequestTimeoutSeconds = cmp.Or(h.RequestTimeoutSeconds, DefaultRequestTimeoutSeconds)
	h.MaxConcurrentRequests = cmp.Or(h.MaxConcurrentRequests, DefaultMaxConcurrentRequests)
	h.MaxQueuedRequests = cmp.Or(h.MaxQueuedRequests, DefaultMaxQueuedRequests)
	h.BodyTimeoutSeconds = cmp.Or(h.BodyTimeoutSeconds, DefaultBodyTimeoutSeconds)
	c.Server.Limits.MaxTurnsPerUser = cmp.Or(c.Server.Limits.MaxTurnsPerUser, DefaultMaxTurnsPerUser)
	c.Store.Redis.TimeoutSeconds = cmp.Or(c.Store.Redis.TimeoutSeconds, DefaultStoreTimeoutSeconds)
	c.Server.Limits.MaxRequestBytes = cmp.Or(c.Server.Limits.MaxRequestBytes, DefaultMaxRequestBytes)
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
	c.Spec.Output.AgentMetadata = cmp.Or(c.Spec.Output.AgentMetadata, "normalized")
	if c.Server.AllowedOrigins == nil {
		c.Server.AllowedOrigins = []string{}
	}
	c.Server.Playground.Enabled = defaultTrue(c.Server.Playground.Enabled)
	c.Server.OpenAPI = defaultTrue(c.Server.OpenAPI)
	c.Server.AGUI = defaultTrue(c.Server.AGUI)
	c.Server.Metrics = defaultTrue(c.Server.Metrics)
	c.Server.Schedules.defaults()
	applyTriggerDefaults(c.Server.Triggers)
	c.Store.KeyPrefix = cmp.Or(c.Store.KeyPrefix, DefaultKeyPrefix)
	c.Store.LeaseSeconds = cmp.Or(c.Store.LeaseSeconds, DefaultLeaseSeconds)
	c.Store.LivenessSeconds = cmp.Or(c.Store.LivenessSeconds, min(DefaultLivenessSeconds, c.Store.LeaseSeconds))
	c.Store.MaxAttempts = cmp.Or(c.Store.MaxAttempts, DefaultMaxAttempts)
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
	c.Spec.OnBusy = cmp.Or(c.Spec.OnBusy, "reject")
	c.Store.Retention.ReceiptsSeconds = cmp.Or(c.Store.Retention.ReceiptsSeconds, DefaultReceiptTTLSeconds)
}

func (m *ModelBackend) applyDefaults() {
	m.TimeoutSeconds = cmp.Or(m.TimeoutSeconds, DefaultModelTimeoutSeconds)
	m.MaxSteps = cmp.Or(m.MaxSteps, DefaultModelMaxSteps)
	m.HistoryMessages = cmp.Or(m.HistoryMessages, DefaultModelHistoryMessages)
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
