package conformance

import (
	"bytes"
	"net"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// The whole message reaches a real worker, and its rich answers come back:
// a2a-go v2.3.1 clients over JSON-RPC, HTTP+JSON and gRPC against harnest
// serving ../../backend/testdata/msg_worker.py (worker mode).

// startMsgWorker serves the test worker with every 1.0 and 0.3 binding,
// gRPC included, on one listener. It skips without python3.
func startMsgWorker(t *testing.T) (base string) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	worker, err := filepath.Abs("../../backend/testdata/msg_worker.py")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	card := "name: Conformance Worker\ndescription: Echoes parts as artifacts.\nversion: 1.0.0\nsupportedInterfaces:\n" +
		"  - {url: \"http://" + addr + "\", protocolBinding: GRPC, protocolVersion: \"1.0\"}\n" +
		"  - {url: \"http://" + addr + "/a2a\", protocolBinding: JSONRPC, protocolVersion: \"1.0\"}\n" +
		"  - {url: \"http://" + addr + "/rest\", protocolBinding: HTTP+JSON, protocolVersion: \"1.0\"}\n" +
		"  - {url: \"http://" + addr + "/a2a\", protocolBinding: JSONRPC, protocolVersion: \"0.3\"}\n" +
		"  - {url: \"http://" + addr + "/rest\", protocolBinding: HTTP+JSON, protocolVersion: \"0.3\"}\n" +
		"capabilities:\n  streaming: true\ndefaultInputModes: [text/plain, application/json]\ndefaultOutputModes: [text/plain]\n" +
		"skills:\n  - {id: echo, name: Echo, description: Echoes parts., tags: [echo], inputModes: [application/pdf]}\n"
	cfg := configHead + "spec:\n  backend:\n    exec:\n      command: [python3, " + worker + "]\n      mode: worker\n      workers: 2\n"
	return serveOn(t, l, writeFolder(t, map[string]string{"config.yaml": cfg, "agent-card.yaml": card}))
}

// msgClients are a2a-go v2 clients of each 1.0 binding of base.
func msgClients(t *testing.T, base string) map[a2a.TransportProtocol]*a2aclient.Client {
	t.Helper()
	out := map[a2a.TransportProtocol]*a2aclient.Client{a2a.TransportProtocolGRPC: grpcClient(t, base, "")}
	for _, binding := range bindingsV2 {
		ctx := ctxT(t)
		card, err := agentcard.DefaultResolver.Resolve(ctx, base)
		if err != nil {
			t.Fatalf("resolve card: %v", err)
		}
		c, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{binding}}))
		if err != nil {
			t.Fatalf("client from card: %v", err)
		}
		t.Cleanup(func() { _ = c.Destroy() })
		out[binding] = c
	}
	return out
}

func artifactOf(task *a2a.Task, id string) *a2a.Artifact {
	for _, a := range task.Artifacts {
		if string(a.ID) == id {
			return a
		}
	}
	return nil
}

func TestMsgPartsReachTheWorkerAndComeBackAsArtifacts(t *testing.T) {
	base := startMsgWorker(t)
	file := []byte("plain notes, no signature\n")
	for binding, c := range msgClients(t, base) {
		t.Run(string(binding), func(t *testing.T) {
			ctx := ctxT(t)
			raw := a2a.NewRawPart(file)
			raw.Filename, raw.MediaType = "notes.txt", "text/plain"
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("echo these"),
				a2a.NewDataPart(map[string]any{"n": 1.0}), raw,
				a2a.NewFileURLPart("https://files.example/report.pdf", "application/pdf"))
			msg.Extensions = []string{"https://ext.example/v1"}
			msg.Metadata = map[string]any{"trace": "t-1"}
			msg.ReferenceTasks = []a2a.TaskID{"task-earlier"}
			res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg})
			if err != nil {
				t.Fatal(err)
			}
			task, ok := res.(*a2a.Task)
			if !ok {
				t.Fatalf("an answer with artifacts is a task, got %#v", res)
			}
			if task.Status.State != a2a.TaskStateCompleted {
				t.Fatalf("state %s", task.Status.State)
			}
			seen := artifactOf(task, "message")
			if seen == nil || len(seen.Parts) != 1 {
				t.Fatalf("no message artifact: %#v", task.Artifacts)
			}
			m, _ := seen.Parts[0].Data().(map[string]any)
			if m["messageId"] != msg.ID || m["metadata"].(map[string]any)["trace"] != "t-1" ||
				m["extensions"].([]any)[0] != "https://ext.example/v1" || m["referenceTaskIds"].([]any)[0] != "task-earlier" {
				t.Fatalf("the worker saw the message as %v", m)
			}
			data := artifactOf(task, "part-1")
			if d, _ := data.Parts[0].Data().(map[string]any); d["n"] != 1.0 {
				t.Fatalf("data part came back as %#v", data.Parts[0])
			}
			back := artifactOf(task, "part-2")
			if back == nil || !bytes.Equal(back.Parts[0].Raw(), file) || back.Parts[0].Filename != "notes.txt" {
				t.Fatalf("file part came back as %#v", back)
			}
			url := artifactOf(task, "part-3")
			if url == nil || url.Parts[0].URL() != "https://files.example/report.pdf" || url.Parts[0].MediaType != "application/pdf" {
				t.Fatalf("file URL came back as %#v", url)
			}
		})
	}
}

func TestMsgChunkedArtifactStreams(t *testing.T) {
	base := startMsgWorker(t)
	for binding, c := range msgClients(t, base) {
		t.Run(string(binding), func(t *testing.T) {
			ctx := ctxT(t)
			var chunks []*a2a.TaskArtifactUpdateEvent
			var taskID a2a.TaskID
			for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{
				Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("chunks please"))}) {
				if err != nil {
					t.Fatal(err)
				}
				switch e := ev.(type) {
				case *a2a.Task:
					taskID = e.ID
				case *a2a.TaskArtifactUpdateEvent:
					if e.Artifact.ID == "story" {
						chunks = append(chunks, e)
					}
				}
			}
			if len(chunks) != 3 || chunks[0].Append || !chunks[1].Append || !chunks[2].Append ||
				chunks[1].LastChunk || !chunks[2].LastChunk {
				t.Fatalf("chunks: %+v", chunks)
			}
			task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: taskID})
			if err != nil {
				t.Fatal(err)
			}
			story := artifactOf(task, "story")
			if story == nil || textOf(story.Parts) != "one two three" || story.Description != "told in chunks" {
				t.Fatalf("stored artifact: %#v", story)
			}
		})
	}
}

func TestMsgRejectedAndAuthRequiredTasks(t *testing.T) {
	base := startMsgWorker(t)
	for binding, c := range msgClients(t, base) {
		t.Run(string(binding), func(t *testing.T) {
			for _, tc := range []struct {
				input string
				state a2a.TaskState
				text  string
			}{
				{"reject this", a2a.TaskStateRejected, "I will not do that."},
				{"auth me", a2a.TaskStateAuthRequired, "Sign in to the calendar first."},
			} {
				ctx := ctxT(t)
				res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(tc.input))})
				if err != nil {
					t.Fatal(err)
				}
				task, ok := res.(*a2a.Task)
				if !ok || task.Status.State != tc.state || task.Status.Message == nil || textOf(task.Status.Message.Parts) != tc.text {
					t.Fatalf("%s: %#v", tc.input, res)
				}
				var last a2a.TaskState
				for ev, err := range c.SendStreamingMessage(ctx, &a2a.SendMessageRequest{
					Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(tc.input))}) {
					if err != nil {
						t.Fatal(err)
					}
					if u, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
						last = u.Status.State
					}
				}
				if last != tc.state {
					t.Fatalf("%s streamed: last state %s", tc.input, last)
				}
			}
		})
	}
}
