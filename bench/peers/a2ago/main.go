// Command a2ago is the a2a-go v2 peer of bench/run.sh's A2A section: an
// a2a-go v2.3.1 JSON-RPC server at /rpc whose agent answers every message
// with a message repeating its text ("Echo: <text>") and keeps nothing, the
// same agent as the message echo of conformance/a2a-go's
// BenchmarkSendMessage. It is its own Go module so that harnest's module
// does not depend on a2a-go.
//
//	a2ago -addr 127.0.0.1:0
//
// It listens on loopback only and prints "listening on ADDR" when ready.
package main

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// echoAgent answers every message with a message repeating its text.
type echoAgent struct{}

// Execute yields one agent message, "Echo: " and the message's text.
func (echoAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		var text strings.Builder
		for _, p := range ec.Message.Parts {
			text.WriteString(p.Text())
		}
		reply := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Echo: "+text.String()))
		reply.ContextID = ec.ContextID
		yield(reply, nil)
	}
}

// Cancel yields the cancelled status (nothing ever runs long enough).
func (echoAgent) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "a2ago: -addr %q must be a loopback address such as 127.0.0.1:0\n", *addr)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "a2ago:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(echoAgent{})))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	fmt.Printf("listening on %s\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "a2ago:", err)
		os.Exit(1)
	}
}
