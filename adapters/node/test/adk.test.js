// Tests of the ADK adapter: a real ADK Runner and LlmAgent on a small
// scripted BaseLlm, with the adapter's turn handler writing into a recorder.
import assert from "node:assert/strict";
import { test } from "node:test";

import { adk, createAdapter } from "../adk.js";

// ScriptedModel streams a thought and "Hi there friend" to plain text, calls
// `act` for "act", and answers a function response with "Acted.". It keeps
// each request's contents so tests can see what the agent was sent.
class ScriptedModel extends adk.BaseLlm {
  constructor() {
    super({ model: "scripted" });
    this.requests = [];
  }

  async *generateContentAsync(request) {
    this.requests.push(request.contents);
    const last = request.contents[request.contents.length - 1];
    const usage = { promptTokenCount: 2, candidatesTokenCount: 3, totalTokenCount: 5 };
    if (last.parts.some((p) => p.functionResponse)) {
      yield { content: { role: "model", parts: [{ text: "Acted." }] }, usageMetadata: usage };
      return;
    }
    if (last.parts.some((p) => p.text === "look")) {
      yield { content: { role: "model", parts: [{ text: "Looking. " }] }, partial: true };
      yield { content: { role: "model", parts: [{ text: "Looking. " }, { functionCall: { name: "look", args: { q: "x" } } }] }, usageMetadata: usage };
      return;
    }
    if (last.parts.some((p) => p.text === "act")) {
      yield { content: { role: "model", parts: [{ functionCall: { name: "act", args: { n: 1 } } }] }, usageMetadata: usage };
      return;
    }
    yield { content: { role: "model", parts: [{ text: "Pondering.", thought: true }] }, partial: true };
    for (const word of ["Hi ", "there ", "friend"]) yield { content: { role: "model", parts: [{ text: word }] }, partial: true };
    yield { content: { role: "model", parts: [{ text: "Hi there friend" }] }, usageMetadata: usage };
  }

  async connect() {
    throw new Error("no live mode");
  }
}

let lookRuns = 0;

function newAgent(model) {
  const act = new adk.FunctionTool({
    name: "act",
    description: "Acts, once confirmed.",
    parameters: { type: "OBJECT", properties: { n: { type: "NUMBER" } } },
    requireConfirmation: true,
    execute: ({ n }, context) => {
      context.state.set("acted", (context.state.get("acted") || 0) + n);
      return { done: true };
    },
  });
  const look = new adk.FunctionTool({
    name: "look",
    description: "Looks, and counts its runs.",
    parameters: { type: "OBJECT", properties: { q: { type: "STRING" } } },
    execute: () => {
      lookRuns += 1;
      return { seen: lookRuns };
    },
  });
  return new adk.LlmAgent({ name: "tester", model, instruction: "Test.", tools: [act, look] });
}

// recorder is an `out` that keeps every line and answers approvals with decision.
function recorder(decision = "approve") {
  const lines = [];
  const record = (type) => (value) => lines.push({ type, value });
  return {
    lines,
    signal: new AbortController().signal,
    text: record("text"),
    thinking: record("thinking"),
    activity: record("activity"),
    metadata: record("metadata"),
    toolCall: record("toolCall"),
    toolResult: record("toolResult"),
    state: record("state"),
    result: record("result"),
    checkpoint: (value) => lines.push({ type: "checkpoint", value }) && true,
    approval: async (request) => {
      lines.push({ type: "approval", value: request });
      return decision;
    },
    clientTool: async () => ({ error: "no client tools here" }),
  };
}

function turn(input, extra = {}) {
  return { id: "resp_1", sessionId: "sess_1", userId: "alice", input, content: [], state: {}, metadata: {}, history: [], ...extra };
}

const texts = (lines, type = "text") => lines.filter((l) => l.type === type).map((l) => l.value);

test("partial events stream as text once, thoughts as thinking, usage as metadata", async () => {
  const out = recorder();
  await createAdapter(newAgent(new ScriptedModel())).runTurn(turn("hello"), out);
  assert.deepEqual(texts(out.lines), ["Hi ", "there ", "friend"]);
  assert.deepEqual(texts(out.lines, "thinking"), ["Pondering."]);
  assert.deepEqual(texts(out.lines, "metadata"), [
    { framework: "google-adk", model: "scripted", usage: { inputTokens: 2, outputTokens: 3, totalTokens: 5 } },
  ]);
});

test("a confirmed tool call asks for approval, then runs and answers", async () => {
  const out = recorder("approve");
  await createAdapter(newAgent(new ScriptedModel())).runTurn(turn("act"), out);
  const types = out.lines.map((l) => l.type);
  assert.deepEqual(types, ["toolCall", "approval", "toolResult", "state", "checkpoint", "text", "metadata"]);
  const [call, approval, result] = out.lines.map((l) => l.value);
  assert.equal(call.name, "act");
  assert.deepEqual(approval, { action: "act", message: undefined, arguments: { n: 1 } });
  assert.deepEqual(result, { callId: call.id, name: "act", output: { done: true } });
  assert.deepEqual(texts(out.lines, "state"), [{ acted: 1 }]);
  assert.deepEqual(texts(out.lines), ["Acted."]);
});

test("a denied tool call sends nothing after the request, and the session goes on", async () => {
  const adapter = createAdapter(newAgent(new ScriptedModel()));
  const out = recorder("deny");
  await adapter.runTurn(turn("act"), out);
  assert.deepEqual(out.lines.map((l) => l.type), ["toolCall", "approval", "metadata"]);
  const next = recorder();
  await adapter.runTurn(turn("hello", { id: "resp_2" }), next);
  assert.deepEqual(texts(next.lines), ["Hi ", "there ", "friend"]);
});

test("a session this process has not seen starts from the turn's state and history", async () => {
  const model = new ScriptedModel();
  const out = recorder();
  const history = [
    { id: "m1", role: "user", content: "earlier question", createdAt: "", metadata: {} },
    { id: "m2", role: "assistant", content: "earlier answer", createdAt: "", metadata: {} },
  ];
  await createAdapter(newAgent(model)).runTurn(turn("act", { state: { acted: 4 }, history }), out);
  assert.deepEqual(texts(out.lines, "state"), [{ acted: 5 }]);
  const sent = model.requests[0].map((c) => c.parts.map((p) => p.text).join(""));
  assert.deepEqual(sent, ["earlier question", "earlier answer", "act"]);
});

test("a turn run again by another process resumes from the session events of its last checkpoint", async () => {
  const lost = recorder();
  await createAdapter(newAgent(new ScriptedModel())).runTurn(turn("look"), lost);
  assert.deepEqual(lost.lines.map((l) => l.type), ["text", "toolCall", "toolResult", "checkpoint", "text", "metadata"]);
  const runs = lookRuns;
  const checkpoint = lost.lines.find((l) => l.type === "checkpoint").value;
  assert.equal(checkpoint.adk.text, "Looking. ");

  // A new adapter (another process): no session, only the checkpoint.
  const model = new ScriptedModel();
  const resumed = recorder();
  await createAdapter(newAgent(model)).runTurn(turn("look", { attempt: 2, checkpoint }), resumed);
  assert.deepEqual(resumed.lines.map((l) => l.type), ["text", "metadata"], "only what followed the checkpoint");
  assert.deepEqual(texts(resumed.lines), ["Acted."]);
  assert.equal(lookRuns, runs, "the completed tool call is not run again");
  assert.equal(model.requests.length, 1, "the completed model step is not asked again");
  const sent = model.requests[0].map((c) => c.parts.map((p) => p.text || (p.functionCall && "call") || (p.functionResponse && "response")).join(""));
  assert.deepEqual(sent, ["look", "Looking. call", "response"]);
});

test("a steer is a new user content: the agent runs again with it in the same turn", async () => {
  const model = new ScriptedModel();
  const adapter = createAdapter(newAgent(model));
  const out = recorder();
  let steers = [{ steerId: "steer_1", input: "and more", content: [] }];
  out.takeSteers = () => steers.splice(0);
  await adapter.runTurn(turn("hello"), out);
  assert.equal(model.requests.length, 2);
  const last = model.requests[1].at(-1);
  assert.deepEqual([last.role, last.parts.map((p) => p.text)], ["user", ["and more"]]);
  assert.equal(texts(out.lines).join(""), "Hi there friendHi there friend");
});
