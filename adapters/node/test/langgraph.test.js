// Tests of the LangGraph adapter: the example graph of examples/langgraph-js
// on its scripted fake model, driven through the protocol.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { ends, startWorker } from "./helpers.js";

const agent = fileURLToPath(new URL("../../../examples/langgraph-js/agent.js", import.meta.url));
const start = (t) => startWorker(t, agent, { HARNEST_FAKE_MODEL: "1" });
const textOf = (lines) => lines.filter((l) => l.type === "text").map((l) => l.delta).join("");

test("tokens stream as text deltas and declared state goes in and out", async (t) => {
  const w = start(t);
  w.turn("r1", "hi", { turns: 4, other: "kept" });
  const got = await w.until(ends);
  assert.equal(got.at(-1).type, "done");
  assert.ok(got.filter((l) => l.type === "text").length > 3, "the answer came in several deltas");
  assert.equal(textOf(got), "Hello! This is turn 5 of our conversation.");
  assert.deepEqual(got.find((l) => l.type === "state").delta, { turns: 5 });
  assert.equal(got[0].framework, "langgraph");
});

test("a tool call and its result become tool lines", async (t) => {
  const w = start(t);
  w.turn("r1", "Please look up oslo");
  const got = await w.until(ends);
  const call = got.find((l) => l.type === "tool_call");
  const result = got.find((l) => l.type === "tool_result");
  assert.deepEqual([call.name, call.arguments], ["lookup", { query: "oslo" }]);
  assert.deepEqual([result.callId, result.output], [call.callId, { query: "oslo", entries: 3 }]);
  assert.equal(textOf(got), "The lookup found 3 entries.");
});

test("an interrupt is an approval request; the decision resumes the graph", async (t) => {
  const w = start(t);
  w.turn("r1", "send a note to bob");
  const request = (await w.until((l) => l.type === "approval_request")).at(-1);
  assert.deepEqual([request.action, request.arguments.to], ["send_message", "bob"]);
  w.send({ type: "approval", id: "r1", requestId: request.requestId, decision: "approve" });
  const approved = await w.until(ends);
  assert.equal(approved.find((l) => l.type === "tool_result").output, "sent to bob");
  assert.equal(textOf(approved), "Sent to bob.");

  w.turn("r2", "send a note to eve");
  const second = (await w.until((l) => l.type === "approval_request")).at(-1);
  w.send({ type: "approval", id: "r2", requestId: second.requestId, decision: "deny" });
  const denied = await w.until(ends);
  assert.equal(denied.at(-1).type, "done");
  assert.equal(denied.find((l) => l.type === "tool_result"), undefined, "a denied send never ran");
});

test("a thread this process did not serve starts from the transcript", async (t) => {
  const w = start(t);
  w.turn("r1", "hi", {}, { sessionId: "s2" });
  await w.until(ends);
  // Turns served elsewhere since: the transcript no longer follows this
  // process's turn, so the adapter rebuilds the thread from it (no error).
  const history = [
    { id: "m1", role: "user", content: "hi" },
    { id: "m2", role: "assistant", content: "Hello!" },
    { id: "m3", role: "user", content: "Please look up rome" },
    { id: "m4", role: "assistant", content: "The lookup found 3 entries." },
  ];
  w.turn("r2", "hello again", { turns: 7 }, { sessionId: "s2", history });
  const got = await w.until(ends);
  assert.equal(textOf(got), "Hello! This is turn 8 of our conversation.");
});

test("a graph without checkpointer gets one, and a cancel stops the run", async (t) => {
  const plain = fileURLToPath(new URL("./fixtures/plain-graph.js", import.meta.url));
  const w = startWorker(t, plain, { PLAIN_GRAPH: "1" });
  w.turn("r1", "one");
  assert.equal(textOf(await w.until(ends)), "echo 1: one");
  w.turn("r2", "slow", {}, { history: [{ id: "m1", role: "user", content: "one" }, { id: "m2", role: "assistant", content: "echo 1: one" }] });
  await w.until((l) => l.type === "metadata");
  w.send({ type: "cancel", id: "r2" });
  assert.deepEqual((await w.until(ends)).map((l) => l.type), ["done"]);
  // The cancelled run is not in the transcript: the thread is rebuilt from it.
  w.turn("r3", "three", {}, { history: [{ id: "m1", role: "user", content: "one" }, { id: "m2", role: "assistant", content: "echo 1: one" }] });
  assert.equal(textOf(await w.until(ends)), "echo 3: three");
});

test("a turn run again in a new process resumes from the graph's last checkpoint", async (t) => {
  const lost = start(t);
  lost.turn("r1", "Please look up oslo", { turns: 1 });
  const first = await lost.until(ends);
  const last = first.findLastIndex((l) => l.type === "checkpoint");
  assert.ok(last > first.findIndex((l) => l.type === "tool_result"), "a checkpoint follows the tool's result");
  assert.ok(first[last].value.langgraph.checkpoint.length > 0);
  const output = (lines) => lines.filter((l) => ["text", "tool_call", "tool_result", "state"].includes(l.type)).map((l) => [l.type, l.delta ?? l.callId]);

  // Another process (another replica): no thread, only the checkpoint.
  const survivor = start(t);
  survivor.turn("r1", "Please look up oslo", { turns: 1 }, { attempt: 2, checkpoint: first[last].value });
  const resumed = await survivor.until(ends);
  assert.equal(resumed.at(-1).type, "done");
  assert.deepEqual(output(resumed), output(first.slice(last + 1)), "the resumed attempt writes what followed the checkpoint, and only that");
  assert.equal(textOf(resumed), "The lookup found 3 entries.");
  assert.equal(resumed.filter((l) => l.type === "tool_call").length, 0, "the completed tool step is not run again");
  assert.deepEqual(resumed.find((l) => l.type === "state").delta, { turns: 2 });
});

test("a steer becomes a human message, and the graph runs again with it in the same turn", async (t) => {
  const plain = fileURLToPath(new URL("./fixtures/plain-graph.js", import.meta.url));
  const w = startWorker(t, plain, { PLAIN_GRAPH: "1" });
  w.turn("r1", "pause");
  w.send({ type: "steer", id: "r1", steerId: "steer_1", input: "left", content: [{ type: "text", text: "left" }] });
  const got = await w.until(ends);
  assert.equal(got.at(-1).type, "done");
  assert.equal(textOf(got), "echo 1: pauseecho 3: left");
});

test("a HumanInterrupt offers edit and respond, and resumes with its HumanResponse", async (t) => {
  const hitl = fileURLToPath(new URL("./fixtures/hitl-graph.js", import.meta.url));
  const cases = [
    [{ decision: "approve" }, { type: "accept", args: null }],
    [{ decision: "edit", arguments: { to: "bob" } }, { type: "edit", args: { action: "send_email", args: { to: "bob" } } }],
    [{ decision: "respond", result: "Alice is away." }, { type: "response", args: "Alice is away." }],
  ];
  for (const [i, [answer, want]] of cases.entries()) {
    const w = startWorker(t, hitl, { HITL_GRAPH: "1" });
    const id = `r${i}`;
    w.turn(id, "send it", {}, { sessionId: `s${i}` });
    const request = (await w.until((l) => l.type === "approval_request")).at(-1);
    assert.deepEqual([request.action, request.arguments, request.answers, request.message], ["send_email", { to: "alice" }, ["edit", "respond"], "Send the email?"]);
    w.send({ type: "approval", id, requestId: request.requestId, ...answer });
    const got = await w.until(ends);
    assert.equal(got.at(-1).type, "done");
    assert.deepEqual(JSON.parse(textOf(got)), want);
  }
});
