// Tests of the protocol core: a real worker process driven through its stdin and stdout.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { ends, startWorker as start } from "./helpers.js";

const fixture = fileURLToPath(new URL("./fixtures/echo-worker.js", import.meta.url));
const startWorker = (t) => start(t, fixture, { ECHO_WORKER: "1" });


test("a turn streams its lines and ends with done", async (t) => {
  const w = startWorker(t);
  w.turn("r1", "hello", { turns: 2 });
  const got = await w.until(ends);
  assert.deepEqual(got.map((l) => l.type), ["metadata", "tool_call", "tool_result", "state", "text", "text", "done"]);
  assert.ok(got.every((l) => l.id === "r1"));
  assert.deepEqual(got[0].usage, { inputTokens: 2, outputTokens: 3, totalTokens: 5 });
  assert.deepEqual(got[1], { type: "tool_call", id: "r1", callId: "c1", name: "lookup", arguments: { q: "hello" } });
  assert.deepEqual(got[3].delta, { turns: 3 });
  assert.equal(got[5].delta, "hello");
});

test("a throwing handler ends the turn with error and the worker keeps serving", async (t) => {
  const w = startWorker(t);
  w.turn("r1", "fail");
  const got = await w.until(ends);
  assert.equal(got.at(-1).type, "error");
  assert.equal(got.at(-1).message, "asked to fail");
  w.turn("r2", "again");
  assert.equal((await w.until(ends)).at(-1).type, "done");
});

test("approvals and client tools wait for their answers", async (t) => {
  const w = startWorker(t);
  w.turn("r1", "approve ask");
  const request = (await w.until((l) => l.type === "approval_request")).at(-1);
  assert.equal(request.action, "send");
  assert.deepEqual(request.arguments, { to: "bob" });
  w.send({ type: "approval", id: "old", requestId: request.requestId, decision: "approve" }); // another turn's: ignored
  w.send({ type: "approval", id: "r1", requestId: request.requestId, decision: "approve" });
  const tool = (await w.until((l) => l.type === "client_tool_request")).at(-1);
  assert.equal(tool.name, "where");
  w.send({ type: "client_tool", id: "r1", requestId: tool.requestId, output: { city: "Paris" } });
  const got = await w.until(ends);
  assert.equal(got.find((l) => l.type === "text").delta, 'client said {"output":{"city":"Paris"}} ');
  assert.equal(got.at(-1).type, "done");

  w.turn("r2", "approve");
  const second = (await w.until((l) => l.type === "approval_request")).at(-1);
  w.send({ type: "approval", id: "r2", requestId: second.requestId, decision: "deny" });
  const denied = await w.until(ends);
  assert.deepEqual(denied.map((l) => l.type), ["done"]);
});

test("a steer line reaches the running turn, even one that came before the turn started", async (t) => {
  const w = startWorker(t);
  w.turn("r1", "steer");
  w.send({ type: "steer", id: "r1", steerId: "steer_a", input: "left", content: [{ type: "text", text: "left" }] });
  const got = await w.until(ends);
  assert.equal(got.find((l) => l.type === "text").delta, "steered: left (steer_a, 1 part)");
  w.turn("r2", "steer");
  await w.until((l) => l.type === "metadata");
  w.send({ type: "steer", id: "r1", steerId: "steer_old", input: "stale", content: [] }); // an ended turn's: ignored
  w.send({ type: "steer", id: "r2", steerId: "steer_b", input: "right", content: [] });
  assert.equal((await w.until(ends)).find((l) => l.type === "text").delta, "steered: right (steer_b, 0 part)");
});

test("a cancel aborts the signal, drops later output and ends the turn", async (t) => {
  const w = startWorker(t);
  w.turn("r1", "hang");
  await w.until((l) => l.type === "metadata");
  w.send({ type: "cancel", id: "r1" });
  const got = await w.until(ends);
  assert.deepEqual(got.map((l) => l.type), ["done"]);
  w.turn("r2", "next");
  assert.equal((await w.until(ends)).at(-1).id, "r2");
});

test("the worker exits when stdin ends", async (t) => {
  const w = startWorker(t);
  const exited = new Promise((resolve) => w.child.on("exit", resolve));
  w.child.stdin.end();
  assert.equal(await exited, 0);
});

test("attempt and checkpoint reach the handler; out.checkpoint sends a checkpoint line, never an oversize one", async (t) => {
  const w = startWorker(t);
  w.turn("r1", "resume");
  let got = await w.until(ends);
  assert.deepEqual(got.map((l) => l.type), ["metadata", "text", "checkpoint", "text", "done"]);
  assert.equal(got[1].delta, "attempt 1 from null; ");
  assert.deepEqual(got[2], { type: "checkpoint", id: "r1", value: { at: "half" } });
  w.turn("r1", "resume", {}, { attempt: 2, checkpoint: { at: "half" } });
  got = await w.until(ends);
  assert.equal(got[1].delta, 'attempt 2 from {"at":"half"}; ');
});
