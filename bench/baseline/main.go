// Command baseline is the reference server for the harnest benchmark: a bare
// net/http handler that returns a fixed JSON body (POST /responses) or a fixed
// six-frame SSE stream (/sse). harnest's throughput is measured against it.
//
// It prints "listening on ADDR" as its first line of stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"
)

// jsonBody is close in shape and size to harnest's echo envelope.
var jsonBody = []byte(`{"id":"resp_0123456789abcdef0123456789abcdef","sessionId":"0123456789abcdef0123456789abcdef","status":"completed","outputText":"Echo: hello","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Echo: hello"}]}],"metadata":{}}`)

// sseFrames is a fixed six-frame stream ending with response.completed.
var sseFrames = [][]byte{
	[]byte("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_0123456789abcdef0123456789abcdef\",\"status\":\"in_progress\"}}\n\n"),
	[]byte("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"item\":{\"type\":\"message\",\"role\":\"assistant\"}}\n\n"),
	[]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Echo: \"}\n\n"),
	[]byte("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"hello\"}\n\n"),
	[]byte("event: response.output_text.done\ndata: {\"type\":\"response.output_text.done\",\"text\":\"Echo: hello\"}\n\n"),
	append(append([]byte("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":"), jsonBody...), []byte("}\n\n")...),
}

var jsonBodyLen = strconv.Itoa(len(jsonBody))

func handleResponses(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", jsonBodyLen)
	_, _ = w.Write(jsonBody)
}

// handleSSE accepts any method (so the load client can send the same POST as
// for harnest), discards the body and writes one frame per flush.
func handleSSE(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	for _, frame := range sseFrames {
		if _, err := w.Write(frame); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

func handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = io.WriteString(w, "ok\n")
}

func newMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /responses", handleResponses)
	mux.HandleFunc("/sse", handleSSE)
	mux.HandleFunc("GET /healthz", handleHealthz)
	return mux
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
	fmt.Printf("listening on %s\n", ln.Addr())

	srv := &http.Server{
		Handler:           newMux(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	log.Fatal(srv.Serve(ln))
}
