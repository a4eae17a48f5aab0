package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/internal/gcfloor"
	"github.com/harnest/harnest/internal/httplog"
	"github.com/harnest/harnest/internal/logbuf"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/schedule"
	"github.com/harnest/harnest/server"
)

// tuneRuntime adjusts the runtime's options; nil but in the end-to-end
// tests' build (knobs_e2e.go).
var tuneRuntime func(*runtime.Options)

// tuneSchedules adjusts the schedules' options; nil but in the end-to-end
// tests' build (knobs_e2e.go).
var tuneSchedules func(*schedule.Options)

func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	host := fs.String("host", "", "listen host (overrides server.http.host)")
	port := fs.Int("port", -1, "listen port (overrides server.http.port; 0 picks a free port)")
	redisURL := fs.String("redis-url", os.Getenv("HARNEST_REDIS_URL"), "Redis URL (overrides store.redis.url; env HARNEST_REDIS_URL); empty uses the embedded store")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	grace := fs.Duration("shutdown-grace", 10*time.Second, "how long running responses may finish after SIGINT/SIGTERM before they are cancelled (resumable background turns are handed off to the other live replicas at once)")
	drain := fs.Duration("drain-delay", 0, "how long to keep serving, not ready (/readyz 503), after SIGINT/SIGTERM before the shutdown starts")
	folder, err := parseInterspersed(fs, args)
	if err != nil {
		if err != flag.ErrHelp {
			fmt.Fprintln(os.Stderr, "harnest serve:", err)
		}
		return 2
	}
	// Log lines (one per request) are written out in batches, at most
	// 100 ms late, and all of them before serve returns.
	logOut := logbuf.New(os.Stderr, 100*time.Millisecond)
	defer logOut.Close()
	log, err := newLogger(logOut, *logFormat, *logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harnest serve:", err)
		return 2
	}

	f, err := config.Load(folder)
	if err != nil {
		fmt.Fprintf(os.Stderr, "harnest serve: %s is not a valid agent folder:\n%v\nRun \"harnest check %s\" to list every problem.\n", folder, err, folder)
		return 1
	}
	httpCfg := &f.Config.Server.HTTP
	if *host != "" {
		httpCfg.Host = *host
	}
	if *port >= 0 {
		httpCfg.Port = *port
	}
	if !httpCfg.AllowRemote && !config.IsLoopbackHost(httpCfg.Host) {
		fmt.Fprintf(os.Stderr, "harnest serve: host %q is not a loopback address; set server.http.allowRemote: true (and configure auth.tokens) to serve other machines\n", httpCfg.Host)
		return 1
	}

	onRedis := *redisURL != "" || f.Config.Store.Redis.URL != ""
	floor, err := gcFloor(onRedis, os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harnest serve:", err)
		return 2
	}
	defer gcfloor.Start(floor).Stop()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal now ends the process at once
	}()
	srv, err := server.New(ctx, f, server.Options{RedisURL: *redisURL, Logger: log, Tune: tuneRuntime, Schedules: tuneSchedules})
	if err != nil {
		fmt.Fprintln(os.Stderr, "harnest serve:", err)
		return 1
	}
	l, err := net.Listen("tcp", net.JoinHostPort(httpCfg.Host, strconv.Itoa(httpCfg.Port)))
	if err != nil {
		srv.Close()
		fmt.Fprintf(os.Stderr, "harnest serve: cannot listen: %v\n", err)
		return 1
	}
	opts := server.ServeOptions{Grace: *grace, DrainDelay: *drain}
	if t := f.Config.Server.TLS; t.Enabled() {
		cert, err := loadCertificate(t, f.Dir, log)
		if err != nil {
			l.Close()
			srv.Close()
			fmt.Fprintln(os.Stderr, "harnest serve:", err)
			return 1
		}
		defer cert.reloadOnHangup()()
		opts.TLS = cert.config()
	}
	printBanner(os.Stdout, f, srv, l.Addr().(*net.TCPAddr))
	if err := srv.ServeWith(ctx, l, opts); err != nil {
		log.Error("server stopped", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// defaultGCFloor is the heap the collector waits for (internal/gcfloor).
const defaultGCFloor = 64 << 20

// gcFloor is the heap size below which the collector of a replica on
// Redis does not run: HARNEST_GC_FLOOR (a size such as 64MiB; 0 turns the
// floor off), by default defaultGCFloor, and none when the operator set
// GOGC. A replica on the in-process store gets none: its heap holds the
// state and soon passes any floor, and fewer collections would only keep
// grown goroutine stacks longer (an idle socket's memory).
func gcFloor(onRedis bool, getenv func(string) string) (uint64, error) {
	if !onRedis || getenv("GOGC") != "" {
		return 0, nil
	}
	v := getenv("HARNEST_GC_FLOOR")
	if v == "" {
		return defaultGCFloor, nil
	}
	if v == "0" {
		return 0, nil
	}
	n, err := config.ParseByteSize(v)
	if err != nil {
		return 0, fmt.Errorf("HARNEST_GC_FLOOR=%q: %v (give a size such as 64MiB, or 0 for none)", v, err)
	}
	return uint64(n), nil
}

// printBanner says what is served where, and which store holds the state.
func printBanner(w io.Writer, f *config.Folder, srv *server.Server, addr *net.TCPAddr) {
	ip := addr.IP
	if ip.IsUnspecified() { // 0.0.0.0 and :: are reachable on loopback
		if ip.To4() != nil {
			ip = net.IPv4(127, 0, 0, 1)
		} else {
			ip = net.IPv6loopback
		}
	}
	scheme := "http://"
	if f.Config.Server.TLS.Enabled() {
		scheme = "https://"
	}
	base := scheme + net.JoinHostPort(ip.String(), strconv.Itoa(addr.Port))
	cfg := f.Config
	fmt.Fprintf(w, "harnest %s serving agent %q from %s\n", version, cfg.Metadata.Name, f.Dir)
	fmt.Fprintf(w, "  API:        %s\n", base)
	if config.Enabled(cfg.Server.Playground.Enabled) {
		fmt.Fprintf(w, "  Playground: %s/\n", base)
	}
	if config.Enabled(cfg.Server.OpenAPI) {
		fmt.Fprintf(w, "  Swagger UI: %s/docs\n", base)
		fmt.Fprintf(w, "  OpenAPI:    %s/openapi.json\n", base)
		fmt.Fprintf(w, "              %s/openapi.yaml\n", base)
	}
	fmt.Fprintf(w, "  Store:      %s\n", srv.Store.Describe())
	switch {
	case len(cfg.Auth.Tokens) == 0 && cfg.Auth.JWT == nil:
		fmt.Fprintf(w, "  Auth:       none (every caller is the anonymous user)\n")
	case cfg.Auth.JWT == nil:
		fmt.Fprintf(w, "  Auth:       bearer tokens (%d configured)\n", len(cfg.Auth.Tokens))
	default:
		fmt.Fprintf(w, "  Auth:       JWTs (issuer %q) and %d static bearer tokens\n", cfg.Auth.JWT.Issuer, len(cfg.Auth.Tokens))
	}
}

func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(httplog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(httplog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("invalid --log-format %q: use text or json", format)
}
