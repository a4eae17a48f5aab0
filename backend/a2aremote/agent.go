package a2aremote

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/log"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/netguard"
	"github.com/harnest/harnest/runtime"
)

// cancelTimeout bounds the CancelTask call sent when a turn ends before
// its remote task does.
const cancelTimeout = 5 * time.Second

// Agent is a remote A2A agent as a runtime.Agent: each turn is a message
// to the agent its card describes, in the session's remote context.
type Agent struct {
	url     string // the configured URL, as the session state names it
	token   string
	timeout time.Duration
	cards   *cardCache
	http    *http.Client
	log     *slog.Logger
}

// Options configure the backend.
type Options struct {
	Config config.A2ABackend
	Logger *slog.Logger

	// Resolver, Dial and TLSConfig replace the address guard's system
	// resolver, dialer and TLS configuration (tests inject them; see
	// internal/netguard/netguardtest).
	Resolver  netguard.Resolver
	Dial      func(ctx context.Context, network, address string) (net.Conn, error)
	TLSConfig *tls.Config
}

// New builds the backend. It reaches nothing yet: the card is read on the
// first turn (or readiness check). A URL the address guard refuses
// outright (plain http to a host that is not a listed loopback one, a
// literal private address not listed) is an error here.
func New(o Options) (*Agent, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	card, err := cardURL(o.Config.URL)
	if err != nil || card.Host == "" {
		return nil, fmt.Errorf("a2a backend: spec.backend.a2a.url is not an absolute URL such as https://agents.example.com/")
	}
	p := policy(o)
	if err := p.CheckURL(card); err != nil {
		var refused *netguard.RefusedError
		if errors.As(err, &refused) {
			return nil, fmt.Errorf("a2a backend: spec.backend.a2a.url is refused by the address guard: %s; list a private or loopback host in spec.backend.a2a.allowHosts", refused.Reason)
		}
		return nil, fmt.Errorf("a2a backend: spec.backend.a2a.url: %w", err)
	}
	timeout := o.Config.Timeout()
	if timeout <= 0 {
		timeout = config.DefaultA2ATimeoutSeconds * time.Second
	}
	hc := httpClient(p, timeout)
	return &Agent{
		url: o.Config.URL, token: o.Config.Token, timeout: timeout, http: hc,
		cards: &cardCache{cardURL: card.String(), token: o.Config.Token, policy: p, http: hc},
		log:   logger.With("backend", "a2a"),
	}, nil
}

// Ready reports whether the remote agent's card can be read (it is then
// kept for cardTTL, so that probes cost no round trip each).
func (a *Agent) Ready(ctx context.Context) error {
	ctx, note := withNote(log.AttachLogger(ctx, a.log))
	if _, err := a.cards.get(ctx); err != nil {
		turnErr, why := classify(err, note)
		return fmt.Errorf("a2a backend: %s (%s)", turnErr, why)
	}
	return nil
}

// Close lets go of the pooled connections.
func (a *Agent) Close() error {
	a.http.CloseIdleConnections()
	return nil
}

// Run runs one turn: the input as a message in the session's remote
// context (continuing the remote task that waits for input, if any),
// streamed when the card says the agent streams, else sent and awaited.
func (a *Agent) Run(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(log.AttachLogger(ctx, a.log), a.timeout)
	defer cancel()
	ctx, note := withNote(ctx)
	prev := readState(turn.State, a.url)

	rem, err := a.cards.get(ctx)
	if err != nil {
		return a.failed(parent, ctx, err, note, "reading the agent card")
	}
	if rem.fresh.CompareAndSwap(true, false) {
		a.log.Info("read the agent card", "agent", rem.card.Name, "binding", rem.iface.ProtocolBinding,
			"version", rem.iface.ProtocolVersion, "interface", rem.iface.URL, "streaming", rem.streams())
	}
	x, err := a.exchange(ctx, rem, turn, prev, emit)
	if ctx.Err() != nil || err != nil {
		switch {
		case runtime.ContinuedElsewhere(parent):
			// The next attempt re-attaches to the remote task (resume.go).
			return parent.Err()
		case x.running():
			a.cancelRemote(rem, x.taskID)
		case x.taskID == "":
			a.log.Info("the turn ended before the remote agent named its task; nothing to cancel")
		}
		if ctx.Err() != nil && parent.Err() == nil {
			return errTimeout()
		}
		return a.failed(parent, ctx, err, note, "exchanging with the remote agent")
	}
	if err := x.finish(); err != nil {
		a.log.Warn("the remote agent did not complete the task", "taskId", x.taskID, "state", stateName(x.state),
			"remote", a.scrub(x.remoteWords()))
		if x.state == a2a.TaskStateAuthRequired {
			a.cancelRemote(rem, x.taskID) // nobody here can give it credentials
		}
		return err
	}
	if ev, ok := x.next(a.url).delta(prev); ok {
		return emit(ev)
	}
	return nil
}

// exchange runs the turn's exchange with the remote: it re-attaches to
// the remote task an earlier attempt of the turn sent the message to
// (resume.go), else sends the input as a message (continuing the remote
// task that waits for input, if any).
func (a *Agent) exchange(ctx context.Context, rem *remote, turn *runtime.Turn, prev sessionState, emit runtime.Emit) (*exchange, error) {
	if task, ok := recallTask(turn); ok {
		a.log.Info("re-attaching to the remote task of an earlier attempt", "taskId", task.TaskID, "attempt", turn.Attempt)
		x := attached(emit, rem.card.Name, task)
		return x, a.reattach(ctx, rem, x)
	}
	msg, err := message(ctx, turn, prev)
	if err != nil {
		return newExchange(emit, rem.card.Name, ""), err
	}
	x := newExchange(emit, rem.card.Name, msg.TaskID)
	x.journal = turn.Journal
	err = a.send(ctx, rem, msg, x)
	if err != nil && msg.TaskID != "" && x.received == 0 && taskGone(err) {
		// The task that waited for input is gone (answered elsewhere,
		// expired, cancelled): the input starts a new task in the context.
		a.log.Info("the remote task that waited for input takes no message; starting a new one", "taskId", msg.TaskID)
		msg = restart(msg)
		x = newExchange(emit, rem.card.Name, "")
		x.journal = turn.Journal
		err = a.send(ctx, rem, msg, x)
	}
	return x, err
}

// failed logs why an exchange failed and returns the turn's error; a
// failure that may come from a stale card drops the cached one.
func (a *Agent) failed(parent, ctx context.Context, err error, note *callNote, doing string) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	if ctx.Err() != nil {
		return errTimeout()
	}
	turnErr, why := classify(err, note)
	a.log.Warn("the remote agent did not answer", "while", doing, "why", why, "err", a.scrub(err.Error()))
	var re *runtime.Error
	if errors.As(turnErr, &re) && (re.Code == CodeUnavailable || re.Code == CodeBadResponse) {
		a.cards.drop()
	}
	return turnErr
}

// cancelRemote sends CancelTask for a remote task the turn leaves behind,
// with a fresh short context (the turn's own is over).
func (a *Agent) cancelRemote(rem *remote, task a2a.TaskID) {
	ctx, cancel := context.WithTimeout(log.AttachLogger(context.Background(), a.log), cancelTimeout)
	defer cancel()
	ctx, note := withNote(ctx)
	if _, err := rem.client.CancelTask(ctx, cancelRequest(task)); err != nil {
		_, why := classify(err, note)
		a.log.Warn("cancelling the remote task failed", "taskId", task, "why", why, "err", a.scrub(err.Error()))
		return
	}
	a.log.Info("cancelled the remote task", "taskId", task)
}

// scrub removes the token from text meant for the log.
func (a *Agent) scrub(s string) string {
	if a.token == "" {
		return s
	}
	return strings.ReplaceAll(s, a.token, "[token]")
}
