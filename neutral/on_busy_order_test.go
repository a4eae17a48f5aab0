package neutral_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/testutil"
	"github.com/harnest/harnest/runtime"
	"github.com/harnest/harnest/server/servertest"
)

// 20 messages posted at once to one session with onBusy enqueue,
// alternating two replicas of one store (one in-process store, or one real
// redis-server), half JSON and half streamed, with a slow agent: all are
// accepted and answered, never two run at once, they run in the order they
// were accepted (the session's list of responses), and the transcript holds
// them in that order.
func TestEnqueueTwentyAcrossReplicas(t *testing.T) {
	var running atomic.Int32
	var overlap atomic.Bool
	var mu sync.Mutex
	var started []string
	agent := runtime.AgentFunc(func(ctx context.Context, turn *runtime.Turn, emit runtime.Emit) error {
		if running.Add(1) != 1 {
			overlap.Store(true)
		}
		defer running.Add(-1)
		mu.Lock()
		started = append(started, turn.Input)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		return emit(runtime.Event{Type: runtime.EventTextDelta, Delta: "echo: " + turn.Input})
	})
	servertest.EachStoreReplicas(t, 2, setup{Agent: agent}, func(t *testing.T, replicas []*servertest.Server) {
		mu.Lock()
		started = nil
		mu.Unlock()
		mustStatus(t, replicas[0].Post("/sessions", `{"id":"c"}`), 201)
		const n = 20
		ids, answers := make([]string, n), make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ids[i], answers[i] = postQueued(replicas[i%2], fmt.Sprint("m", i), i%2 == 1)
			}()
		}
		wg.Wait()
		for i := range n {
			if answers[i] != fmt.Sprint("echo: m", i) {
				t.Fatalf("message %d (%s) answered %q", i, ids[i], answers[i])
			}
		}
		if overlap.Load() {
			t.Fatal("two responses of the session ran at once")
		}
		listed := replicas[1].Get("/sessions/c/responses?limit=50").JSON(t)["responses"].([]any)
		if len(listed) != n {
			t.Fatalf("%d responses listed, want %d", len(listed), n)
		}
		var accepted []string
		for j := len(listed) - 1; j >= 0; j-- { // oldest first
			id := listed[j].(map[string]any)["id"].(string)
			accepted = append(accepted, fmt.Sprint("m", slices.Index(ids, id)))
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(started, accepted) {
			t.Fatalf("ran in order %v, accepted in order %v", started, accepted)
		}
		messages := replicas[0].Get("/sessions/c/messages?limit=100").JSON(t)["messages"].([]any)
		var got, want []string
		for _, m := range messages {
			got = append(got, fmt.Sprint(m.(map[string]any)["content"]))
		}
		for _, in := range accepted {
			want = append(want, in, "echo: "+in)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("transcript\n%v\nwant\n%v", got, want)
		}
	})
}

// postQueued posts input with onBusy enqueue and returns the response's ID
// and its answer (or what went wrong, as the answer).
func postQueued(ts *servertest.Server, input string, stream bool) (id, answer string) {
	body := fmt.Sprintf(`{"input":%q,"sessionId":"c","onBusy":"enqueue","stream":%v}`, input, stream)
	resp, err := http.DefaultClient.Do(ts.Request("POST", "/responses", "application/json", []byte(body)))
	if err != nil {
		return "", err.Error()
	}
	defer resp.Body.Close()
	id = resp.Header.Get("Harnest-Response-Id")
	if resp.StatusCode != http.StatusOK {
		return id, fmt.Sprint("status ", resp.StatusCode)
	}
	if !stream {
		var env map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			return id, err.Error()
		}
		return id, fmt.Sprint(env["outputText"])
	}
	frames := testutil.ReadSSE(resp.Body)
	if len(frames) == 0 || frames[0].Event != "response.created" {
		return id, "the stream does not open with response.created"
	}
	last := frames[len(frames)-1]
	if last.Event != "response.completed" {
		return id, "the stream ends with " + last.Event + ": " + strings.TrimSpace(last.Raw)
	}
	return id, fmt.Sprint(last.Data["outputText"])
}
