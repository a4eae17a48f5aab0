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
	if c.Store.KeyPrefix == "" {
		c.Store.KeyPrefix = DefaultKeyPrefix
	}
	if c.Store.LeaseSeconds == 0 {
		c.Store.LeaseSeconds = DefaultLeaseSeconds
	}
	if c.Store.Retention.ReceiptsSeconds == 0 {
		c.Store.Retention.ReceiptsSeconds = DefaultReceiptTTLSeconds
	}
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
