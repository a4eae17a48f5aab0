package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Serving a replica on a listener, and its graceful shutdown.

// Serve answers HTTP on l until ctx ends, then shuts down: it stops
// accepting, hands its resumable background turns to the other live
// replicas (runtime/handoff.go), lets the other running responses finish
// within grace, cancels the rest (recording their receipts) and closes the
// store.
func (s *Server) Serve(ctx context.Context, l net.Listener, grace time.Duration) error {
	return s.ServeWith(ctx, l, ServeOptions{Grace: grace})
}

// ServeOptions say how a replica serves and stops.
type ServeOptions struct {
	// Grace is how long running responses may finish once shutting down.
	Grace time.Duration
	// DrainDelay is how long the replica keeps serving, not ready, before
	// it stops accepting: time for a load balancer to see /readyz fail.
	DrainDelay time.Duration
	// TLS, when set, serves HTTPS (HTTP/2 included) with it.
	TLS *tls.Config
}

// ServeWith is Serve with options: on ctx's end the replica first drains
// (GET /readyz answers 503 at once, turns are still taken) for DrainDelay,
// then shuts down as Serve does.
func (s *Server) ServeWith(ctx context.Context, l net.Listener, o ServeOptions) error {
	grace := o.Grace
	hs := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		TLSConfig:         o.TLS,
	}
	if s.a2a.ServesGRPC() {
		// gRPC over cleartext HTTP/2 (h2c, prior knowledge) on the same port.
		hs.Protocols = new(http.Protocols)
		hs.Protocols.SetHTTP1(true)
		hs.Protocols.SetHTTP2(true)
		hs.Protocols.SetUnencryptedHTTP2(true)
	}
	errc := make(chan error, 1)
	go func() {
		if o.TLS != nil {
			errc <- hs.ServeTLS(l, "", "") // the certificate comes from TLSConfig
			return
		}
		errc <- hs.Serve(l)
	}()
	select {
	case err := <-errc:
		s.closeStore()
		s.flushTraces()
		return err
	case <-ctx.Done():
	}
	s.Service.Drain()
	s.schedules.Close() // claims no more fires: the other replicas do
	if o.DrainDelay > 0 {
		s.log.Info("draining: not ready, still serving", "delay", o.DrainDelay)
		select {
		case <-time.After(o.DrainDelay):
		case err := <-errc:
			s.closeStore()
			s.flushTraces()
			return err
		}
	}
	s.log.Info("shutting down", "grace", grace)
	graceCtx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	go func() { _ = s.Service.Shutdown(graceCtx) }()
	if s.live != nil {
		// http.Server.Shutdown does not see hijacked sockets.
		go func() { _ = s.live.Shutdown(graceCtx) }()
	}
	s.closeMCP() // its open event streams would hold the shutdown for the whole grace
	err := hs.Shutdown(graceCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		// Grace is over: the service has cancelled what still ran; give
		// handlers a moment to write their last frames, then close.
		finalCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = hs.Shutdown(finalCtx)
		if err != nil {
			hs.Close()
		}
	}
	_ = s.Service.Shutdown(context.Background())
	s.closeAgent()
	s.closeStore()
	s.flushTraces()
	if serveErr := <-errc; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err // non-nil when connections had to be closed by force
}
