package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// door is one way into the agent: where a streamed turn is posted, its
// body, and the SSE event names of its first token and its end.
type door struct {
	Name       string
	Path       string
	Body       string
	FirstToken string // the event whose end is the first token
	Final      string // the event that ends a turn that succeeded
	// Chunks says the stream's frames are unnamed, each data a JSON
	// chunk whose "type" names it (the AI SDK's UI message stream).
	Chunks bool
	// NewTurn, when set, makes each turn's body (a chat of its own) and
	// says when the turn is over (its chat is free again).
	NewTurn func() (body string, done func())
}

// doors are the two doors compared, on the same agent.
func doors(o options) []door {
	input := fmt.Sprintf("%q", o.Input)
	return []door{
		{Name: "POST /responses", Path: "/responses", Body: `{"input":` + input + `,"stream":true}`,
			FirstToken: "response.text.delta", Final: "response.completed"},
		{Name: "POST /v1/responses", Path: "/v1/responses", Body: `{"model":"` + o.Model + `","input":` + input + `,"stream":true}`,
			FirstToken: "response.output_text.delta", Final: "response.completed"},
		useChatDoor(o, false),
		useChatDoor(o, true),
	}
}

// turn sends one streamed turn and returns its time to first token; an
// error for a turn that failed (not 200, no first token, or no final
// event).
func (d door) turn(ctx context.Context, client *http.Client, base, token string) (time.Duration, error) {
	body := d.Body
	if d.NewTurn != nil {
		var done func()
		body, done = d.NewTurn()
		defer done()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+d.Path, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, fmt.Errorf("%s: %d %s", d.Path, resp.StatusCode, b)
	}
	var ttft time.Duration
	event := ""
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event:"):
			event = strings.TrimSpace(line[len("event:"):])
		case d.Chunks && strings.HasPrefix(line, "data:"):
			event = chunkType(line[len("data:"):])
		case line == "" && event != "":
			if event == d.FirstToken && ttft == 0 {
				ttft = time.Since(start)
			}
			if event == d.Final {
				if ttft == 0 {
					return 0, fmt.Errorf("%s: the turn ended without a text delta", d.Path)
				}
				return ttft, nil
			}
			event = ""
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: the stream ended without %s (last event %q)", d.Path, d.Final, event)
}
