// Drives harnest's useChat door (/api/chat) on two replicas of one store
// with the AI SDK's own chat transport (DefaultChatTransport from "ai"):
// node transport.mjs <replica A URL> <replica B URL>. The agent (set up by
// the Go test) echoes its input ("Echo: <input>"), a word every 200 ms when
// the input contains "slow", calls the client's first tool when the input
// contains "tool", and asks for an approval when it contains "approve". Prints "ok <check>" or "FAIL <check>: <why>" per
// check, then "N passed, N failed".
import { DefaultChatTransport, readUIMessageStream } from "ai";

const [A, B] = process.argv.slice(2);
const headers = { Authorization: "Bearer alice-token" };
const onA = new DefaultChatTransport({ api: A + "/api/chat", headers });
const onB = new DefaultChatTransport({ api: B + "/api/chat", headers });

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log("ok " + name);
    passed++;
  } catch (e) {
    console.log("FAIL " + name + ": " + (e?.stack ?? e));
    failed++;
  }
}
function assert(ok, what) {
  if (!ok) throw new Error(what);
}
const json = (v) => JSON.stringify(v);
const user = (id, text) => ({ id, role: "user", parts: [{ type: "text", text }] });

// last reads a chunk stream into the UI message the AI SDK builds from it.
async function last(stream, message) {
  let m;
  for await (const u of readUIMessageStream({ stream, message, terminateOnError: true })) m = u;
  return m;
}
const textOf = (m) => m.parts.filter((p) => p.type === "text").map((p) => p.text).join("");

await check("a turn streams into a UI message", async () => {
  const stream = await onA.sendMessages({ chatId: "node-1", messages: [user("u1", "hello node")], trigger: "submit-message", abortSignal: undefined });
  const m = await last(stream);
  assert(m.role === "assistant" && textOf(m) === "Echo: hello node" && m.id.startsWith("resp_"), json(m));
  assert(m.metadata?.status === "completed" && m.metadata?.sessionId === "node-1", json(m.metadata));
});

await check("reconnect without an active stream is null (204)", async () => {
  assert((await onB.reconnectToStream({ chatId: "node-1" })) === null, "not null");
  assert((await onB.reconnectToStream({ chatId: "never-posted" })) === null, "not null for a new chat");
});

await check("posted on A, resumed on B, stopped on B", async () => {
  const ac = new AbortController();
  const stream = await onA.sendMessages({ chatId: "node-2", messages: [user("u1", "slow a b c d e f g h i j k l m n")], trigger: "submit-message", abortSignal: ac.signal });
  const reader = stream.getReader();
  let seen = 0;
  while (seen < 4) {
    const { value, done } = await reader.read();
    assert(!done, "ended early");
    if (value.type === "text-delta") seen++;
  }
  ac.abort(); // what useChat's stop() does: the request goes, the turn stays
  await reader.cancel().catch(() => {});

  const resumed = await onB.reconnectToStream({ chatId: "node-2" });
  assert(resumed !== null, "no active stream on B");
  const chunks = [];
  const r2 = resumed.getReader();
  let stopped = null;
  for (;;) {
    const { value, done } = await r2.read();
    if (done) break;
    chunks.push(value);
    if (value.type === "text-delta" && stopped === null && chunks.filter((c) => c.type === "text-delta").length >= 6) {
      const res = await fetch(B + "/api/chat/node-2/stop", { method: "POST", headers });
      stopped = await res.json();
      assert(res.status === 200 && stopped.stopped === true && stopped.status === "cancelled", json(stopped));
    }
  }
  const types = chunks.map((c) => c.type);
  assert(types[0] === "start" && types.includes("abort") && types.at(-1) === "finish", json(types));
  const text = chunks.filter((c) => c.type === "text-delta").map((c) => c.delta).join("");
  assert(text.startsWith("Echo: slow a b c") && !text.endsWith("n"), text);
  assert(chunks.at(-1).messageMetadata.status === "cancelled", json(chunks.at(-1)));
  assert((await onA.reconnectToStream({ chatId: "node-2" })) === null, "still active after the stop");
});

await check("a client tool round trip across replicas", async () => {
  const stream = await onA.sendMessages({ chatId: "node-3", messages: [user("u1", "tool please")], trigger: "submit-message", body: { tools: [{ name: "getWeather", parameters: { type: "object" } }] } });
  const m = await last(stream);
  const part = m.parts.find((p) => p.type === "tool-getWeather");
  assert(part && part.state === "input-available" && part.toolCallId.startsWith("client_tool_"), json(m.parts));
  const answered = { ...m, parts: m.parts.map((p) => (p === part ? { ...p, state: "output-available", output: { sky: "clear" } } : p)) };
  const rest = await onB.sendMessages({ chatId: "node-3", messages: [user("u1", "tool please"), answered], trigger: "submit-message" });
  const done = await last(rest, answered);
  assert(textOf(done).includes('getWeather said: {"sky":"clear"}') && done.metadata.status === "completed", json(done));
});

await check("an approval requested on A, approved on B", async () => {
  const stream = await onA.sendMessages({ chatId: "node-5", messages: [user("u1", "approve this")], trigger: "submit-message" });
  const m = await last(stream);
  const part = m.parts.find((p) => p.type === "dynamic-tool" && p.state === "approval-requested");
  assert(part && part.toolName === "send_email" && part.approval.id.startsWith("approval_") && part.approval.requestReason === "Send the email?", json(m.parts));
  // What addToolApprovalResponse leaves in the message.
  const answered = { ...m, parts: m.parts.map((p) => (p === part ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } } : p)) };
  const rest = await onB.sendMessages({ chatId: "node-5", messages: [user("u1", "approve this"), answered], trigger: "submit-message" });
  const done = await last(rest, answered);
  const ran = done.parts.find((p) => p.type === "dynamic-tool" && p.toolCallId === "call_1");
  assert(ran && ran.state === "output-available" && ran.output.sent === true && textOf(done).startsWith("Echo: approve"), json(done.parts));
});

await check("a bad token is the transport's error (401)", async () => {
  const bad = new DefaultChatTransport({ api: A + "/api/chat", headers: { Authorization: "Bearer wrong" } });
  try {
    await bad.sendMessages({ chatId: "node-4", messages: [user("u1", "hi")], trigger: "submit-message" });
    throw new Error("no error");
  } catch (e) {
    assert(e.statusCode === 401 || String(e.message).includes("401") || String(e.message).includes("token"), String(e));
  }
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
