package config

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

var (
	dnsLabelPattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	envNamePattern  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Ranges accepted by config.yaml.
const (
	maxEchoDelayMs           = 60_000
	maxRequestTimeoutSeconds = 86_400
	maxConcurrentRequests    = 100_000
	minRequestBytes          = KiB
	maxRequestBytes          = GiB
)

// loopbackHosts may be listened on without server.http.allowRemote.
var loopbackHosts = map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true}

// validator checks a decoded Config. It skips paths that already have a
// decoding problem (and fields below them), so one mistake is reported once.
type validator struct {
	d *decoder
}

func (v *validator) problem(path, format string, args ...any) {
	for p := path; p != ""; p = parentPath(p) {
		if v.d.bad[p] {
			return
		}
	}
	v.d.problem(path, format, args...)
}

// show quotes a value for a message, or names the variable it came from.
func (v *validator) show(path, value string) string {
	if name, ok := v.d.env[path]; ok {
		return "the value of ${" + name + "}"
	}
	return strconv.Quote(shorten(value))
}

// parentPath strips the last ".key" or "[i]" from a path.
func parentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

func validateConfig(c *Config, d *decoder) {
	v := &validator{d: d}
	v.header(c)
	v.backend(c.Spec.Backend)
	v.tools(c.Spec)
	v.relaySpec(c.Spec)
	if c.Spec.Instructions != "" && !localFileName(c.Spec.Instructions) {
		v.problem("spec.instructions", "must name a file in the agent folder, such as instructions.md (no absolute path, no ..)")
	}
	v.output(c.Spec.Output)
	v.memory(c.Spec)
	switch c.Spec.OnReplicaLoss {
	case "", "fail", "rerun":
	default:
		v.problem("spec.onReplicaLoss", "must be fail or rerun, got %s", v.show("spec.onReplicaLoss", c.Spec.OnReplicaLoss))
	}
	switch c.Spec.OnBusy {
	case "", "reject", "enqueue", "interrupt", "rollback":
	default:
		v.problem("spec.onBusy", "must be reject, enqueue, interrupt or rollback, got %s", v.show("spec.onBusy", c.Spec.OnBusy))
	}
	v.server(c.Server)
	v.auth(c.Auth)
	v.store(c.Store)
}

func (v *validator) header(c *Config) {
	v.constant("apiVersion", c.APIVersion, APIVersion)
	v.constant("kind", c.Kind, Kind)
	switch name := c.Metadata.Name; {
	case name == "":
		v.problem("metadata.name", "required; give the agent a name such as \"my-agent\"")
	case !dnsLabelPattern.MatchString(name):
		v.problem("metadata.name", "must be a DNS label (a lowercase letter, then up to 62 lowercase letters, digits or '-'), got %s", v.show("metadata.name", name))
	}
}

// constant checks a field that must hold one value: want.
func (v *validator) constant(path, got, want string) {
	switch got {
	case want:
	case "":
		v.problem(path, "required; set it to %q", want)
	default:
		v.problem(path, "must be %q, got %s", want, v.show(path, got))
	}
}

func (v *validator) backend(b Backend) {
	n := 0
	for _, set := range []bool{b.Echo != nil, b.Exec != nil, b.Relay != nil, b.Model != nil, b.A2A != nil, b.Router != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		v.problem("spec.backend", "set exactly one backend; allowed keys are echo, exec, model, a2a, relay and router (for the built-in echo agent write `echo: {}`)")
	case n > 1:
		v.problem("spec.backend", "set exactly one backend, found %d of echo, exec, model, a2a, relay and router; keep one of them", n)
	}
	if b.Model != nil {
		v.model(b.Model)
	}
	if b.A2A != nil {
		v.a2aBackend(b.A2A)
	}
	if b.Router != nil {
		v.router(b.Router)
	}
	if r := b.Relay; r != nil {
		if r.DeadlineSeconds < 0 || r.DeadlineSeconds > 60 {
			v.problem("spec.backend.relay.deadlineSeconds", "must be between 1 and 60 (0 means 60)")
		}
		if r.VisitorDailyCap < 0 {
			v.problem("spec.backend.relay.visitorDailyCap", "must be 0 or more")
		}
	}
	if e := b.Echo; e != nil {
		if e.DelayMs < 0 || e.DelayMs > maxEchoDelayMs {
			v.problem("spec.backend.echo.delayMs", "must be between 0 and %d", maxEchoDelayMs)
		}
	}
	if e := b.Exec; e != nil {
		switch {
		case len(e.Command) == 0:
			v.problem("spec.backend.exec.command", `required; give the program and its arguments as a list, such as ["./agent.sh"]`)
		case e.Command[0] == "":
			v.problem("spec.backend.exec.command[0]", "must name the program to run; it is empty")
		}
		switch e.Mode {
		case "", "turn", "worker":
		default:
			v.problem("spec.backend.exec.mode", "must be turn or worker, got %s", v.show("spec.backend.exec.mode", e.Mode))
		}
		if e.Workers < 0 || e.Workers > 64 {
			v.problem("spec.backend.exec.workers", "must be between 1 and 64 (0 means 1)")
		}
		if e.Resumes && e.Mode != "worker" {
			v.problem("spec.backend.exec.resumes", "is for mode: worker (a worker that sends checkpoint lines); a turn program is run again with onReplicaLoss: rerun")
		}
		if e.TimeoutSeconds < 0 {
			v.problem("spec.backend.exec.timeoutSeconds", "must be 0 (no limit of its own) or more")
		}
		v.envNames("spec.backend.exec.env", e.Env)
	}
}

func (v *validator) output(o Output) {
	switch o.AgentMetadata {
	case "", "normalized", "suppress", "raw":
	default:
		v.problem("spec.output.agentMetadata", "must be normalized, suppress or raw, got %s", v.show("spec.output.agentMetadata", o.AgentMetadata))
	}
}

func (v *validator) server(s Server) {
	if (s.TLS.CertFile == "") != (s.TLS.KeyFile == "") {
		v.problem("server.tls", "set both certFile and keyFile (PEM files), or neither")
	}
	if u := s.PublicBaseURL; u != "" {
		if parsed, err := url.Parse(u); err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
			v.problem("server.publicBaseURL", "must be an absolute http or https URL such as https://agents.example.com")
		}
	}
	h := s.HTTP
	host := h.Host
	if v.d.set["server.http.host"] && host == "" {
		v.problem("server.http.host", "must not be empty; remove the key to use %s", DefaultHost)
	}
	if host == "" {
		host = DefaultHost
	}
	if !loopbackHosts[host] && !h.AllowRemote {
		v.problem("server.http.host", "%s is not a loopback address (127.0.0.1, ::1, localhost); set server.http.allowRemote: true to listen on it, and consider auth.tokens", v.show("server.http.host", host))
	}
	if v.d.set["server.http.port"] && (h.Port < 1 || h.Port > 65535) {
		v.problem("server.http.port", "must be between 1 and 65535")
	}
	if v.d.set["server.http.requestTimeoutSeconds"] && !(h.RequestTimeoutSeconds > 0 && h.RequestTimeoutSeconds <= maxRequestTimeoutSeconds) {
		v.problem("server.http.requestTimeoutSeconds", "must be greater than 0 and at most %d (one day)", maxRequestTimeoutSeconds)
	}
	if v.d.set["server.http.maxConcurrentRequests"] && (h.MaxConcurrentRequests < 1 || h.MaxConcurrentRequests > maxConcurrentRequests) {
		v.problem("server.http.maxConcurrentRequests", "must be between 1 and %d", maxConcurrentRequests)
	}
	if v.d.set["server.http.maxQueuedRequests"] && (h.MaxQueuedRequests < 1 || h.MaxQueuedRequests > 1_000_000) {
		v.problem("server.http.maxQueuedRequests", "must be between 1 and 1000000")
	}
	if v.d.set["server.http.bodyTimeoutSeconds"] && !(h.BodyTimeoutSeconds > 0 && h.BodyTimeoutSeconds <= 3600) {
		v.problem("server.http.bodyTimeoutSeconds", "must be greater than 0 and at most 3600 (one hour)")
	}
	if v.d.set["server.limits.maxTurnsPerUser"] && (s.Limits.MaxTurnsPerUser < 1 || s.Limits.MaxTurnsPerUser > maxConcurrentRequests) {
		v.problem("server.limits.maxTurnsPerUser", "must be between 1 and %d", maxConcurrentRequests)
	}
	v.userLimits(s.Limits)
	v.outbound(s.Outbound)
	v.schedules(s.Schedules)
	v.triggers(s.Triggers)
	if size := s.Limits.MaxRequestBytes; v.d.set["server.limits.maxRequestBytes"] && (size < minRequestBytes || size > maxRequestBytes) {
		v.problem("server.limits.maxRequestBytes", "must be between %s and %s", minRequestBytes, maxRequestBytes)
	}
}

// userLimits checks the per-user rate limits shared by replicas (0: no
// limit).
func (v *validator) userLimits(l Limits) {
	if l.RequestsPerMinute < 0 || l.RequestsPerMinute > 1_000_000 {
		v.problem("server.limits.requestsPerMinute", "must be between 0 (no limit) and 1000000")
	}
	if l.TurnsPerDay < 0 || l.TurnsPerDay > 100_000_000 {
		v.problem("server.limits.turnsPerDay", "must be between 0 (no limit) and 100000000")
	}
	if l.ConcurrentResponses < 0 || l.ConcurrentResponses > maxConcurrentRequests {
		v.problem("server.limits.concurrentResponses", "must be between 0 (no limit) and %d", maxConcurrentRequests)
	}
	v.usageLimits(l)
}

func (v *validator) auth(a Auth) {
	v.authJWT(a.JWT)
	first := map[string]int{} // token -> index of its first use
	for i, t := range a.Tokens {
		path := indexPath("auth.tokens", i)
		if t.Token == "" {
			v.problem(path+".token", "must not be empty")
		} else if j, dup := first[t.Token]; dup {
			v.problem(path+".token", "duplicate token, same as auth.tokens[%d].token; each token must be unique", j)
		} else {
			first[t.Token] = i
		}
		if t.User == "" {
			v.problem(path+".user", "must not be empty; name the user this token stands for")
		} else if strings.HasPrefix(t.User, JWTUserPrefix) {
			v.problem(path+".user", "must not start with %q, which marks the users of auth.jwt's tokens; rename this user", JWTUserPrefix)
		}
	}
}

func (v *validator) store(s Store) {
	if s.LeaseSeconds < 0 || s.LeaseSeconds > 3600 {
		v.problem("store.leaseSeconds", "must be between 1 and 3600 (0 means the default, 30)")
	}
	if s.LivenessSeconds < 0 || s.LivenessSeconds > 60 {
		v.problem("store.livenessSeconds", "must be between 1 and 60 (0 means the default, 3)")
	} else if s.LeaseSeconds > 0 && s.LivenessSeconds > s.LeaseSeconds {
		v.problem("store.livenessSeconds", "must be at most store.leaseSeconds (%d): a replica's liveness lapses before its leases", s.LeaseSeconds)
	}
	if s.MaxAttempts < 0 || s.MaxAttempts > 100 {
		v.problem("store.maxAttempts", "must be between 1 and 100 (0 means the default, 3)")
	}
	if v.d.set["store.redis.timeoutSeconds"] && !(s.Redis.TimeoutSeconds > 0 && s.Redis.TimeoutSeconds <= 60) {
		v.problem("store.redis.timeoutSeconds", "must be greater than 0 and at most 60")
	}
	if s.Redis.URL != "" {
		if msg := redisURLProblem(s.Redis.URL); msg != "" {
			v.problem("store.redis.url", "%s", msg)
		}
	}
	if s.Retention.ReceiptsSeconds < 0 {
		v.problem("store.retention.receiptsSeconds", "must be 0 (the default, %d) or more", DefaultReceiptTTLSeconds)
	}
}

// redisURLProblem checks a Redis URL. The message never contains the URL,
// which may hold a password.
func redisURLProblem(raw string) string {
	const forms = "use redis://[user:password@]host[:port][/db], rediss://… for TLS, or unix:///path/to/socket"
	u, err := url.Parse(raw)
	if err != nil {
		return "not a valid URL; " + forms
	}
	switch u.Scheme {
	case "redis", "rediss", "unix":
	default:
		return "must start with redis://, rediss:// or unix://; " + forms
	}
	if u.Scheme == "unix" {
		if u.Path == "" {
			return "a unix:// URL needs the socket's path; " + forms
		}
		return ""
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "invalid port " + strconv.Quote(port) + "; " + forms
		}
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		if n, err := strconv.Atoi(db); err != nil || n < 0 {
			return "invalid database number; " + forms
		}
	}
	return ""
}
