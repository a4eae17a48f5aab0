// Command doorturns compares streamed turns of one agent through the doors
// of one harnest server, in one run: the neutral POST /responses
// ({"input", "stream": true}), Open Responses' POST /v1/responses
// ({"model", "input", "stream": true}, server.openResponses on) and the AI
// SDK's useChat POST /api/chat (the chat transport's body, server.useChat
// on): a chat's first turn (a new chat each turn), and a chat's next turn
// (each worker going on in its own chat). It only targets loopback
// addresses.
//
// Each of -c workers sends one streamed turn at a time (closed loop,
// keep-alive), reads it to its final event and starts the next. The doors
// alternate, -d each, for -rounds rounds, after a -warmup of each door, so
// noise falls on both evenly. For each door it reports turns/s (the mean
// over its rounds) and time to first token: from sending the request to
// the end of the first text delta event (response.text.delta on the
// neutral door, response.output_text.delta on /v1/responses, the first
// text-delta chunk on /api/chat), p50 and p99 over every measured turn.
//
//	go run ./bench/doorturns -base http://127.0.0.1:1907 -model echo
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/harnest/harnest/bench/internal/loopback"
)

func main() {
	var o options
	flag.StringVar(&o.Base, "base", "http://127.0.0.1:1907", "the harnest server (loopback only)")
	flag.StringVar(&o.Model, "model", "echo", "the agent's name (metadata.name), sent as model on /v1/responses")
	flag.StringVar(&o.Token, "token", "", "bearer token, when the server has tokens")
	flag.StringVar(&o.Input, "input", "hello", "the turn's input")
	flag.IntVar(&o.Concurrency, "c", 8, "concurrent workers (one turn in flight each)")
	flag.DurationVar(&o.Duration, "d", 5*time.Second, "measured time per door per round")
	flag.DurationVar(&o.Warmup, "warmup", time.Second, "warmup per door (not counted)")
	flag.IntVar(&o.Rounds, "rounds", 3, "rounds (each door once a round)")
	flag.Parse()
	if err := loopback.CheckURL(o.Base); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if o.Concurrency < 1 || o.Rounds < 1 || o.Duration <= 0 {
		fmt.Fprintln(os.Stderr, "-c, -rounds and -d must be positive")
		os.Exit(2)
	}
	results, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	report(os.Stdout, o, results)
}
