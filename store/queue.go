package store

import (
	"context"
	"errors"
	"time"
)

// Queues are the sessions' queues of responses that wait for their turn
// (owner: runtime, runtime/queue.go). A message sent to a busy session
// with the strategy enqueue (or interrupt and rollback, which put it at the
// queue's head) is stored at once, its receipt queued, and starts when the
// responses before it end, on whichever replica takes it.
//
// A session is busy while a response holds its lease or responses are
// queued: BeginResponse refuses a session with a queue (ErrSessionBusy),
// so nothing overtakes the queue. A session's queue lives under the
// session's keys (one Redis Cluster slot) and goes with it.
type Queues interface {
	// QueueResponse queues a response on a busy session, in one operation
	// with the check that it is busy: when a response holds the session's
	// lease or responses are queued already, the response is appended to
	// the queue (q.Front: put at its head), its receipt, request, webhook
	// and events written as BeginResponse and AppendEvents write them, it
	// is listed among the session's responses (SessionResponses) and
	// registered as a run of QueuedReplica (RunsOf finds it). Refusals,
	// which write nothing: ErrSessionNotFound; ErrSessionIdle (nobody
	// holds the session and nothing is queued: begin the response
	// instead; never with q.EvenIdle); ErrQueueFull (q.Bound responses are queued already).
	QueueResponse(ctx context.Context, q Enqueue) error
	// StartQueued hands the first response of the session's queue to
	// replica, atomically: when no response holds the session's lease, the
	// queue's first response whose receipt is neither final nor gone
	// (those before it are dropped from the queue) leaves the queue, holds
	// the session for lease and is registered as a run of replica at epoch
	// 1 (it never ran); its receipt's status becomes in_progress (the
	// first "status":"queued" of the receipt is rewritten). found is false
	// when the session is held, or nothing is queued.
	StartQueued(ctx context.Context, user, session, replica string, lease time.Duration) (run QueuedRun, found bool, err error)
	// CancelQueued takes a queued response out of its session's queue and
	// writes its final receipt and its events (logged after the ones it
	// has), in one operation, and forgets its run; it returns the
	// response's webhook (Enqueue.Webhook, "": none), for its final
	// receipt to be sent as any final's. false, writing nothing: it is not
	// queued (it started, ended, or is unknown).
	CancelQueued(ctx context.Context, user, session, responseID string, receipt []byte, events []Event) (webhook string, ok bool, err error)
	// QueuedResponses returns up to limit IDs of the session's queue, its
	// head first, and how many responses it holds.
	QueuedResponses(ctx context.Context, user, session string, limit int) (ids []string, total int, err error)
}

// QueuedReplica is the name queued runs are registered under: no replica
// holds them (replica IDs are random, never this).
const QueuedReplica = "(queued)"

// Queue refusals (QueueResponse).
var (
	// ErrSessionIdle: nobody holds the session and nothing is queued: the
	// response begins (BeginResponse) instead of queuing.
	ErrSessionIdle = errors.New("store: the session is idle: begin the response instead of queuing it")
	// ErrQueueFull: the session's queue holds its bound already.
	ErrQueueFull = errors.New("store: the session's queue is full")
)

// Enqueue is a response queued on a busy session (QueueResponse).
type Enqueue struct {
	User, Session, ResponseID string
	// Receipt is the queued receipt; Request and Webhook are kept as
	// Begin's are (ClaimRun and StartQueued hand them back).
	Receipt []byte
	Request []byte
	Webhook string
	// Events are the response's first events (response.created), logged
	// with it.
	Events []Event
	// Bound is how many responses the queue may hold (< 1: no bound).
	Bound int
	// Front puts the response at the head of the queue (interrupt,
	// rollback) instead of its tail.
	Front bool
	// EvenIdle queues the response even when the session is idle (never
	// ErrSessionIdle): a steer its turn never took, queued right after
	// that turn's end, goes before any message sent later.
	EvenIdle bool
	Now      string
}

// QueuedRun is a queued response handed to a replica (StartQueued).
type QueuedRun struct {
	ResponseID string
	// Request and Webhook are the response's Enqueue.Request and Webhook
	// (nil, "": none).
	Request []byte
	Webhook string
	// LastSequence is the sequence of its last logged event (-1: none).
	LastSequence int
}
