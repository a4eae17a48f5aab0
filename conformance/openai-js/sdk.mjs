// Drives harnest's /v1/responses on two replicas of one store with the
// official openai npm package: node sdk.mjs <replica A URL> <replica B URL>.
// The agent (set up by the Go test) echoes its input ("Echo: <input>"),
// slowly when the input contains "slow", and calls the client's first
// function tool when tools are offered. Prints "ok <check>" or
// "FAIL <check>: <why>" per check, then "N passed, N failed".
import OpenAI, { AuthenticationError } from "openai";

const [A, B] = process.argv.slice(2);
const options = { apiKey: "alice-token", maxRetries: 0, timeout: 20000 };
const a = new OpenAI({ ...options, baseURL: A + "/v1" });
const b = new OpenAI({ ...options, baseURL: B + "/v1" });
const model = "hello";

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

await check("create and retrieve on the other replica", async () => {
  const r = await a.responses.create({ model, input: "hello node" });
  assert(r.object === "response" && r.status === "completed" && r.output_text === "Echo: hello node", json(r));
  const g = await b.responses.retrieve(r.id);
  assert(g.id === r.id && g.output_text === r.output_text && g.output[0].id === r.output[0].id, json(g));
});

await check("stream", async () => {
  const s = await a.responses.create({ model, input: "stream me", stream: true });
  let seq = 0;
  let text = "";
  let last;
  for await (const e of s) {
    assert(e.sequence_number === seq++, "sequence " + json(e));
    if (e.type === "response.output_text.delta") text += e.delta;
    last = e;
  }
  assert(last.type === "response.completed" && text === "Echo: stream me", json(last));
  assert(last.response.output[0].content[0].text === text, json(last.response));
});

await check("background, dropped connection, resume with starting_after on the other replica", async () => {
  const s = await a.responses.create({ model, input: "slow resume please", stream: true, background: true });
  let id;
  let last = -1;
  let text = "";
  for await (const e of s) {
    if (e.type === "response.created") id = e.response.id;
    last = e.sequence_number;
    if (e.type === "response.output_text.delta") {
      text += e.delta;
      break; // leaving the loop aborts the request: the connection drops
    }
  }
  assert(id && text, "no id or delta before the drop");
  const resumed = await b.responses.retrieve(id, { stream: true, starting_after: last });
  let end;
  for await (const e of resumed) {
    assert(e.sequence_number === ++last, "resumed sequence " + json(e));
    if (e.type === "response.output_text.delta") text += e.delta;
    end = e;
  }
  assert(end?.type === "response.completed" && text === "Echo: slow resume please", json(end) + " " + text);
  const got = await a.responses.retrieve(id);
  assert(got.status === "completed" && got.output_text === text, json(got));
});

await check("cancel from the other replica", async () => {
  const r = await a.responses.create({ model, input: "slow cancel me", background: true });
  assert(r.status === "queued" && r.background === true, json(r));
  const c = await b.responses.cancel(r.id);
  assert(c.status === "cancelled", json(c));
  const g = await a.responses.retrieve(r.id);
  assert(g.status === "cancelled", json(g));
});

await check("function tool round trip across replicas", async () => {
  const tools = [{ type: "function", name: "get_weather", strict: false,
    parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } }];
  const r1 = await a.responses.create({ model, input: "What's the weather in Paris?", tools });
  const call = r1.output.find((i) => i.type === "function_call");
  assert(r1.status === "completed" && call?.name === "get_weather" && JSON.parse(call.arguments).location, json(r1));
  const r2 = await b.responses.create({ model, previous_response_id: r1.id,
    input: [{ type: "function_call_output", call_id: call.call_id, output: '{"temperature":21}' }] });
  assert(r2.status === "completed" && r2.output_text.includes("get_weather said") && r2.output_text.includes("21"), json(r2));
});

await check("previous_response_id across replicas", async () => {
  const first = await a.responses.create({ model, input: "first" }).withResponse();
  const second = await b.responses.create({ model, input: "second", previous_response_id: first.data.id }).withResponse();
  const session = first.response.headers.get("harnest-session-id");
  assert(session && second.response.headers.get("harnest-session-id") === session, "sessions differ");
  assert(second.data.previous_response_id === first.data.id && second.data.output_text === "Echo: second", json(second.data));
  const items = await a.responses.inputItems.list(second.data.id);
  assert(items.data.length === 1 && items.data[0].content[0].text === "second", json(items.data));
});

await check("bad token is an AuthenticationError", async () => {
  const bad = new OpenAI({ ...options, apiKey: "wrong-token", baseURL: A + "/v1" });
  try {
    await bad.responses.create({ model, input: "x" });
  } catch (e) {
    assert(e instanceof AuthenticationError && e.status === 401 && e.code === "invalid_api_key", String(e));
    return;
  }
  throw new Error("no error");
});

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
