package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/server/servertest"
)

// A typed agent (spec.inputSchema) refuses bad input on every door with
// the same JSON pointers, stores nothing, and accepts good input.

const typedInputSchema = `{"type":"object","required":["city","days"],"additionalProperties":false,
 "properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7}}}`

// badTyped breaks the schema in three places: /days, /city and an extra
// member (at the top level).
const badTyped = `{"city":"","days":9,"extra":true}`

var badPointers = []string{"", "/city", "/days"}

func typedSetup() servertest.Setup {
	return servertest.Setup{Config: func(c *config.Config) {
		c.Spec.InputSchema = config.JSONValue(typedInputSchema)
		c.Server.Live = true
	}}
}

// mustViolations checks an error body: code input_invalid and one
// violation at each of badPointers, also named in the detail.
func mustViolations(t *testing.T, body []byte) {
	t.Helper()
	var e struct {
		Code       string `json:"code"`
		Detail     string `json:"detail"`
		Violations []struct{ Pointer, Message string }
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	var got []string
	for _, v := range e.Violations {
		got = append(got, v.Pointer)
	}
	if e.Code != "input_invalid" || strings.Join(got, ",") != strings.Join(badPointers, ",") {
		t.Fatalf("body %s: want code input_invalid and pointers %q", body, badPointers)
	}
	mustDetailPointers(t, e.Detail)
}

// mustDetailPointers checks that a detail sentence names every violation.
func mustDetailPointers(t *testing.T, detail string) {
	t.Helper()
	for _, at := range []string{"at the top level: ", "at /city: ", "at /days: "} {
		if !strings.Contains(detail, at) {
			t.Fatalf("detail %q does not name %q", detail, at)
		}
	}
}

// mustNothingStored checks that the refusals stored nothing: n sessions
// (those a door opened before the refusals), none with a message.
func mustNothingStored(t *testing.T, ts *servertest.Server, n int) {
	t.Helper()
	r := ts.Get("/sessions")
	servertest.MustStatus(t, r, http.StatusOK)
	var list struct{ Sessions []struct{ ID string } }
	if err := json.Unmarshal(r.Body, &list); err != nil || len(list.Sessions) != n {
		t.Fatalf("sessions after refusals: %s", r.Body)
	}
	for _, s := range list.Sessions {
		m := ts.Get("/sessions/" + s.ID + "/messages")
		var msgs struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(m.Body, &msgs); err != nil || len(msgs.Messages) != 0 {
			t.Fatalf("messages after refusals: %s", m.Body)
		}
	}
}

func TestTypedInputNeutralAndSSE(t *testing.T) {
	servertest.EachStore(t, typedSetup(), func(t *testing.T, ts *servertest.Server) {
		for _, body := range []string{
			`{"input":` + badTyped + `}`,
			`{"input":` + badTyped + `,"stream":true}`,
			`{"input":[{"type":"data","data":` + badTyped + `}]}`,
		} {
			r := ts.Post("/responses", body)
			servertest.MustStatus(t, r, http.StatusBadRequest)
			mustViolations(t, r.Body)
		}
		for _, body := range []string{`{"input":"Paris for three days"}`, `{"input":[{"type":"text","text":"hi"}]}`, `{"input":[{"type":"data","data":[1]}]}`} {
			r := ts.Post("/responses", body)
			servertest.MustStatus(t, r, http.StatusBadRequest)
			if !strings.Contains(string(r.Body), `"code":"input_invalid"`) {
				t.Fatalf("%s: %s", body, r.Body)
			}
		}
		mustNothingStored(t, ts, 0)

		r := ts.Post("/responses", `{"input":{"city":"Paris","days":3}}`)
		servertest.MustStatus(t, r, http.StatusOK)
		if got, _ := r.JSON(t)["outputText"].(string); !strings.HasPrefix(got, `Echo: {"city":"Paris","days":3}`) {
			t.Fatalf("outputText %v", got)
		}
		frames, resp := ts.Stream("/responses", `{"input":{"city":"Oslo","days":1},"stream":true}`)
		if resp.StatusCode != http.StatusOK || len(frames) == 0 || frames[len(frames)-1].Event != "response.completed" {
			t.Fatalf("stream: %d %v", resp.StatusCode, frames)
		}
	})
}

func TestUntypedAgentRefusesAnObjectInput(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{})
	r := ts.Post("/responses", `{"input":{"city":"Paris"}}`)
	servertest.MustStatus(t, r, http.StatusBadRequest)
	if !strings.Contains(string(r.Body), "spec.inputSchema") {
		t.Fatalf("body %s", r.Body)
	}
}

func TestTypedInputLive(t *testing.T) {
	servertest.EachStore(t, typedSetup(), func(t *testing.T, ts *servertest.Server) {
		ws := dialTypedLive(t, ts)
		sendFrame(t, ws, `{"type":"response.create","input":`+badTyped+`}`)
		f := readFrame(t, ws)
		detail, _ := f["detail"].(string)
		if f["type"] != "error" {
			t.Fatalf("bad input answered %v", f)
		}
		if detail == "" {
			detail, _ = f["error"].(string)
		}
		mustDetailPointers(t, detail)
		mustNothingStored(t, ts, 1) // the socket's session

		sendFrame(t, ws, `{"type":"response.create","input":{"city":"Rome","days":2}}`)
		for i := 0; ; i++ {
			f := readFrame(t, ws)
			if f["type"] == "response.completed" {
				if !strings.Contains(f["outputText"].(string), `"city":"Rome"`) {
					t.Fatalf("completed %v", f)
				}
				break
			}
			if f["type"] == "error" || i == 100 {
				t.Fatalf("good input answered %v", f)
			}
		}
	})
}

func TestTypedInputA2A(t *testing.T) {
	servertest.EachStore(t, typedSetup(), func(t *testing.T, ts *servertest.Server) {
		send := func(part string) servertest.Reply {
			body := `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[` + part + `]}}`
			return ts.Do("POST", "/message:send", "application/json", []byte(body), "A2A-Version", "1.0")
		}
		bad := send(`{"data":` + badTyped + `}`)
		if bad.Status != http.StatusBadRequest {
			t.Fatalf("bad data part: %d %s", bad.Status, bad.Body)
		}
		mustDetailPointers(t, string(bad.Body))
		if text := send(`{"text":"Paris"}`); text.Status/100 != 4 {
			t.Fatalf("a text part: %d %s", text.Status, text.Body)
		}
		mustNothingStored(t, ts, 0)
		good := send(`{"data":{"city":"Lima","days":4}}`)
		servertest.MustStatus(t, good, http.StatusOK)
		if !strings.Contains(string(good.Body), `Lima`) {
			t.Fatalf("good data part answered %s", good.Body)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func dialTypedLive(t *testing.T, ts *servertest.Server) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/live", http.Header{})
	if err != nil {
		t.Fatalf("dial /live: %v", err)
	}
	t.Cleanup(func() { _ = ws.Close() })
	sendFrame(t, ws, `{"type":"connect"}`)
	if f := readFrame(t, ws); f["type"] != "session.connected" {
		t.Fatalf("connect answered %v", f)
	}
	return ws
}

func sendFrame(t *testing.T, ws *websocket.Conn, frame string) {
	t.Helper()
	_ = ws.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := ws.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
		t.Fatalf("send %s: %v", frame, err)
	}
}

func readFrame(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	var f map[string]any
	if err := ws.ReadJSON(&f); err != nil {
		t.Fatalf("read a frame: %v", err)
	}
	return f
}

// TestTypedAgentShowsItsContract checks /agent, the A2A card and the
// OpenAPI document (JSON and YAML) of a typed agent.
func TestTypedAgentShowsItsContract(t *testing.T) {
	ts := servertest.Start(t, "", typedSetup())
	agent := ts.Get("/agent")
	servertest.MustStatus(t, agent, http.StatusOK)
	if !strings.Contains(string(agent.Body), `"contract":{"inputSchema":{`) || !strings.Contains(string(agent.Body), `"days"`) {
		t.Fatalf("/agent: %s", agent.Body)
	}
	card := ts.Get("/.well-known/agent-card.json")
	if !strings.Contains(string(card.Body), "https://harnest.dev/a2a/ext/contract/v1") || !strings.Contains(string(card.Body), `"application/json"`) {
		t.Fatalf("card: %s", card.Body)
	}
	for _, p := range []string{"/openapi.json", "/openapi.yaml"} {
		doc := ts.Get(p)
		if !strings.Contains(string(doc.Body), "AgentInput") {
			t.Fatalf("%s lacks AgentInput", p)
		}
	}
}

// A program (exec backend) with both schemas: the typed input reaches it
// on stdin as JSON, its JSON answer becomes the receipt's result; an
// answer that does not match fails with output_invalid.
func TestTypedProgramOutput(t *testing.T) {
	const program = `import json, sys
d = json.load(sys.stdin)
if d["city"] == "Nowhere":
    print("no idea")
else:
    print(json.dumps({"summary": d["city"] + " for " + str(d["days"]) + " days"}))`
	setup := servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Exec: &config.ExecBackend{Command: []string{"python3", "-c", program}, TimeoutSeconds: 20}}
		c.Spec.InputSchema = config.JSONValue(typedInputSchema)
		c.Spec.OutputSchema = config.JSONValue(`{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`)
	}}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		r := ts.Post("/responses", `{"input":{"city":"Paris","days":3}}`)
		servertest.MustStatus(t, r, http.StatusOK)
		env := r.JSON(t)
		if res, _ := env["result"].(map[string]any); env["status"] != "completed" || res["summary"] != "Paris for 3 days" {
			t.Fatalf("envelope %s", r.Body)
		}
		r = ts.Post("/responses", `{"input":{"city":"Nowhere","days":1}}`)
		if r.Status == http.StatusOK || !strings.Contains(string(r.Body), `"code":"output_invalid"`) {
			t.Fatalf("an answer that breaks the output schema: %d %s", r.Status, r.Body)
		}
	})
}

// AG-UI: a typed agent reads the newest user message's text as the input
// object.
func TestTypedInputAGUI(t *testing.T) {
	servertest.EachStore(t, typedSetup(), func(t *testing.T, ts *servertest.Server) {
		run := func(content string) servertest.Reply {
			c, _ := json.Marshal(content)
			body := `{"threadId":"th-typed","runId":"r1","messages":[{"id":"u1","role":"user","content":` + string(c) + `}],"state":{},"tools":[],"context":[],"forwardedProps":{}}`
			return ts.Do("POST", "/agui", "application/json", []byte(body), "Accept", "text/event-stream")
		}
		bad := run(badTyped)
		servertest.MustStatus(t, bad, http.StatusBadRequest)
		mustViolations(t, bad.Body)
		if r := run("Paris for three days"); r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), "input_invalid") {
			t.Fatalf("text to a typed agent: %d %s", r.Status, r.Body)
		}
		mustNothingStored(t, ts, 0)
		good := run(`{"city":"Quito","days":5}`)
		servertest.MustStatus(t, good, http.StatusOK)
		if !strings.Contains(string(good.Body), "RUN_FINISHED") || !strings.Contains(string(good.Body), `Quito`) {
			t.Fatalf("good input: %s", good.Body)
		}
	})
}

// /v1/responses: a typed agent reads the user's text as the input object.
func TestTypedInputOpenResponses(t *testing.T) {
	setup := typedSetup()
	base := setup.Config
	setup.Config = func(c *config.Config) { base(c); c.Server.OpenResponses = true }
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		in, _ := json.Marshal(badTyped)
		bad := ts.Post("/v1/responses", `{"model":"hello","input":`+string(in)+`}`)
		if bad.Status != http.StatusBadRequest || !strings.Contains(string(bad.Body), "input_invalid") {
			t.Fatalf("bad input: %d %s", bad.Status, bad.Body)
		}
		var e struct{ Error struct{ Message string } }
		_ = json.Unmarshal(bad.Body, &e)
		mustDetailPointers(t, e.Error.Message)
		mustNothingStored(t, ts, 0)
		good := ts.Post("/v1/responses", `{"model":"hello","input":"{\"city\":\"Bern\",\"days\":2}"}`)
		if good.Status != http.StatusOK || !strings.Contains(string(good.Body), `Bern`) {
			t.Fatalf("good input: %d %s", good.Status, good.Body)
		}
	})
}

// The example typed agent (examples/trip): schemas in files beside
// config.yaml, a program that answers JSON, the plan as the result, and
// the schema's own example in the OpenAPI document.
func TestTripExample(t *testing.T) {
	servertest.EachStore(t, servertest.Setup{Folder: "../examples/trip"}, func(t *testing.T, ts *servertest.Server) {
		r := ts.Post("/responses", `{"input":{"city":"Lisbon","days":2}}`)
		servertest.MustStatus(t, r, http.StatusOK)
		var env struct {
			Status string
			Result struct {
				City string
				Days []struct{ Day int }
			}
		}
		if err := json.Unmarshal(r.Body, &env); err != nil || env.Status != "completed" || env.Result.City != "Lisbon" || len(env.Result.Days) != 2 {
			t.Fatalf("envelope %s", r.Body)
		}
		bad := ts.Post("/responses", `{"input":{"city":"Lisbon","days":0,"pace":"fast"}}`)
		if bad.Status != http.StatusBadRequest || !strings.Contains(string(bad.Body), `"pointer":"/days"`) || !strings.Contains(string(bad.Body), `"pointer":"/pace"`) {
			t.Fatalf("bad input: %d %s", bad.Status, bad.Body)
		}
		var doc bytes.Buffer
		_ = json.Compact(&doc, ts.Get("/openapi.json").Body)
		if !strings.Contains(doc.String(), `"input":{"city":"Lisbon","days":2}`) {
			t.Fatal("the OpenAPI document does not show the schema's example")
		}
	})
}

// An untyped agent's /live refuses an object input, as POST /responses does.
func TestUntypedLiveRefusesAnObjectInput(t *testing.T) {
	ts := servertest.Start(t, "", servertest.Setup{Config: func(c *config.Config) { c.Server.Live = true }})
	ws := dialTypedLive(t, ts)
	sendFrame(t, ws, `{"type":"response.create","input":{"city":"Rome"}}`)
	if f := readFrame(t, ws); f["type"] != "error" || !strings.Contains(mustString(f), "spec.inputSchema") {
		t.Fatalf("an object to an untyped agent answered %v", f)
	}
}

func mustString(v any) string { b, _ := json.Marshal(v); return string(b) }

// A worker (exec worker mode): its typed input arrives as the turn's data
// part; its answer is checked against the output schema like any other.
func TestTypedWorkerOutput(t *testing.T) {
	const worker = `import json, sys
for raw in sys.stdin:
    turn = json.loads(raw)
    if turn.get("type") != "turn":
        continue
    data = [p["data"] for p in turn["content"] if p["type"] == "data"][0]
    answer = "no idea" if data["city"] == "Nowhere" else json.dumps({"summary": data["city"]})
    sys.stdout.write(json.dumps({"type": "text", "id": turn["id"], "delta": answer}) + "\n")
    sys.stdout.write(json.dumps({"type": "done", "id": turn["id"]}) + "\n")
    sys.stdout.flush()`
	setup := servertest.Setup{Config: func(c *config.Config) {
		c.Spec.Backend = config.Backend{Exec: &config.ExecBackend{Command: []string{"python3", "-c", worker}, Mode: "worker", TimeoutSeconds: 20}}
		c.Spec.InputSchema = config.JSONValue(typedInputSchema)
		c.Spec.OutputSchema = config.JSONValue(`{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`)
	}}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		r := ts.Post("/responses", `{"input":{"city":"Oslo","days":3}}`)
		servertest.MustStatus(t, r, http.StatusOK)
		if res, _ := r.JSON(t)["result"].(map[string]any); res["summary"] != "Oslo" {
			t.Fatalf("envelope %s", r.Body)
		}
		r = ts.Post("/responses", `{"input":{"city":"Nowhere","days":1}}`)
		if r.Status == http.StatusOK || !strings.Contains(string(r.Body), `"code":"output_invalid"`) {
			t.Fatalf("an answer that breaks the output schema: %d %s", r.Status, r.Body)
		}
	})
}

// A typed input's media field names an asset of the session: the agent
// gets it as a media part; an asset the session lacks is refused naming
// the field's pointer, and stores nothing.
func TestTypedInputNamesAnAsset(t *testing.T) {
	const schema = `{"type":"object","required":["city","photo"],"properties":{"city":{"type":"string"},
	 "photo":{"type":"object","required":["assetId"],"properties":{"assetId":{"type":"string"}}}}}`
	setup := servertest.Setup{Config: func(c *config.Config) { c.Spec.InputSchema = config.JSONValue(schema) }}
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		s := ts.Post("/sessions", `{}`)
		servertest.MustStatus(t, s, http.StatusCreated)
		sessionID := s.JSON(t)["id"].(string)
		png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa75\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
		up := ts.Do("POST", "/sessions/"+sessionID+"/assets", "image/png", png)
		servertest.MustStatus(t, up, http.StatusCreated)
		assetID := up.JSON(t)["assetId"].(string)

		bad := ts.Post("/responses", `{"sessionId":"`+sessionID+`","input":{"city":"Oslo","photo":{"assetId":"asset_missing"}}}`)
		if bad.Status != http.StatusBadRequest || !strings.Contains(string(bad.Body), "at /photo: ") {
			t.Fatalf("a missing asset: %d %s", bad.Status, bad.Body)
		}
		mustNothingStored(t, ts, 1)
		good := ts.Post("/responses", `{"sessionId":"`+sessionID+`","input":{"city":"Oslo","photo":{"assetId":"`+assetID+`","width":9999}}}`)
		servertest.MustStatus(t, good, http.StatusOK)
		if text, _ := good.JSON(t)["outputText"].(string); !strings.Contains(text, "[data] [image image/png]") {
			t.Fatalf("the agent did not get the asset: %q", text)
		}
	})
}

// useChat (/api/chat): a typed agent reads the newest user text as the
// input object.
func TestTypedInputUseChat(t *testing.T) {
	setup := typedSetup()
	base := setup.Config
	setup.Config = func(c *config.Config) { base(c); c.Server.UseChat = true }
	servertest.EachStore(t, setup, func(t *testing.T, ts *servertest.Server) {
		chat := func(text string) servertest.Reply {
			b, _ := json.Marshal(map[string]any{"id": "chat-typed", "trigger": "submit-message", "messages": []any{
				map[string]any{"id": "m1", "role": "user", "parts": []any{map[string]any{"type": "text", "text": text}}},
			}})
			return ts.Post("/api/chat", string(b))
		}
		bad := chat(badTyped)
		servertest.MustStatus(t, bad, http.StatusBadRequest)
		mustViolations(t, bad.Body)
		mustNothingStored(t, ts, 0)
		good := chat(`{"city":"Kyoto","days":6}`)
		servertest.MustStatus(t, good, http.StatusOK)
		if !strings.Contains(string(good.Body), "Kyoto") {
			t.Fatalf("good input: %s", good.Body)
		}
	})
}
