package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// useChatDoor is the AI SDK's useChat endpoint (server.useChat): the body
// DefaultChatTransport posts. Its first token is the first text-delta
// chunk, its end the finish chunk. A new chat each turn (its session made
// by the turn, as the neutral door's turns each make one), or with
// sameChat each worker's turns going on in a chat of their own, as a
// conversation does.
func useChatDoor(o options, sameChat bool) door {
	input, _ := json.Marshal(o.Input)
	body := func(chat string) string {
		return fmt.Sprintf(`{"id":%q,"trigger":"submit-message","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":%s}]}]}`, chat, input)
	}
	d := door{Name: "POST /api/chat (first)", Path: "/api/chat", Chunks: true, FirstToken: "text-delta", Final: "finish"}
	if !sameChat {
		var n atomic.Int64
		d.NewTurn = func() (string, func()) { return body(fmt.Sprintf("bench-%d-%d", chatRun, n.Add(1))), func() {} }
		return d
	}
	d.Name = "POST /api/chat (next)"
	chats := max(o.Concurrency, 1) // one per worker
	free := make(chan string, chats)
	for i := range chats {
		free <- fmt.Sprintf("bench-%d-chat-%d", chatRun, i)
	}
	d.NewTurn = func() (string, func()) {
		chat := <-free
		return body(chat), func() { free <- chat }
	}
	return d
}

// chatRun tells apart the chats of two runs against one server.
var chatRun = nowNano()

// chunkType reads the "type" of a UI message stream chunk ("" for
// [DONE] or anything else).
func chunkType(data string) string {
	data = strings.TrimSpace(data)
	const prefix = `{"type":"`
	if !strings.HasPrefix(data, prefix) {
		return ""
	}
	rest := data[len(prefix):]
	if i := strings.IndexByte(rest, '"'); i >= 0 {
		return rest[:i]
	}
	return ""
}

func nowNano() int64 { return time.Now().UnixNano() }
