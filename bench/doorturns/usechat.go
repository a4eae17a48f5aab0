package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// useChatDoor is the AI SDK's useChat endpoint (server.useChat): the body
// DefaultChatTransport posts, a new chat (session) each turn, as the
// neutral door's turns each make a new session. Its first token is the
// first text-delta chunk, its end the finish chunk.
func useChatDoor(o options) door {
	var n atomic.Int64
	input, _ := json.Marshal(o.Input)
	return door{Name: "POST /api/chat", Path: "/api/chat", Chunks: true, FirstToken: "text-delta", Final: "finish",
		NewBody: func() string {
			return fmt.Sprintf(`{"id":"bench-%d-%d","trigger":"submit-message","messages":[{"id":"u1","role":"user","parts":[{"type":"text","text":%s}]}]}`,
				chatRun, n.Add(1), input)
		}}
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
