// The Open Responses compliance checks, run against harnest:
// node compliance.mjs <base URL ending in /v1> <api key> <model>.
//
// The specification's compliance suite (openresponses/openresponses,
// bin/compliance-test.ts) is not published as a package: it runs with bun
// from a clone of that repository, against zod schemas generated from its
// OpenAPI document. This file runs the same checks from this folder's lock
// file: the suite's seven requests (basic-response, streaming-response,
// system-prompt, tool-calling, tool-calling-streaming, image-input,
// multi-turn), each over plain fetch as the suite sends it, with its
// validators; the response object and every streamed event are checked
// against zod schemas written here from the specification's
// ResponseResource and streaming event definitions (required fields and
// their types). Then harnest's own checks of what the specification asks
// beyond the suite (extraChecks). Prints "ok <id>" or "FAIL <id>:
// <errors>" per check, then "N passed, N failed".
import { z } from "zod";

const [baseUrl, apiKey, model] = process.argv.slice(2);

const int = z.number().int();
const nullable = (s) => z.union([s, z.null()]);

const outputText = z.object({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.any()), logprobs: z.array(z.any()) });
const reasoningText = z.object({ type: z.literal("reasoning_text"), text: z.string() });
const inputText = z.object({ type: z.literal("input_text"), text: z.string() });
const part = z.union([outputText, reasoningText, inputText]);
const itemStatus = z.enum(["in_progress", "completed", "incomplete"]);

const message = z.object({ type: z.literal("message"), id: z.string(), status: itemStatus,
  role: z.enum(["user", "assistant", "system", "developer"]), content: z.array(part) });
const functionCall = z.object({ type: z.literal("function_call"), id: z.string(), call_id: z.string(), name: z.string(),
  arguments: z.string(), status: itemStatus });
const reasoning = z.object({ type: z.literal("reasoning"), id: z.string(), summary: z.array(part), content: z.optional(z.array(part)) });
const approvalRequest = z.object({ type: z.literal("mcp_approval_request"), id: z.string(), server_label: z.string(), name: z.string(), arguments: z.string() });
const item = z.discriminatedUnion("type", [message, functionCall, reasoning, approvalRequest]);

const functionTool = z.object({ type: z.literal("function"), name: z.string(), description: nullable(z.string()),
  parameters: nullable(z.record(z.any())), strict: nullable(z.boolean()) });
const usage = z.object({ input_tokens: int, output_tokens: int, total_tokens: int,
  input_tokens_details: z.object({ cached_tokens: int }), output_tokens_details: z.object({ reasoning_tokens: int }) });

const responseResource = z.object({
  id: z.string(), object: z.literal("response"), created_at: int, completed_at: nullable(int), status: z.string(),
  incomplete_details: nullable(z.object({ reason: z.string() })), model: z.string(),
  previous_response_id: nullable(z.string()), instructions: nullable(z.string()), output: z.array(item),
  error: nullable(z.object({ code: z.string(), message: z.string() })), tools: z.array(functionTool),
  tool_choice: z.union([z.enum(["none", "auto", "required"]), z.object({ type: z.string() })]),
  truncation: z.enum(["auto", "disabled"]), parallel_tool_calls: z.boolean(),
  text: z.object({ format: z.object({ type: z.string() }) }), top_p: z.number(), presence_penalty: z.number(),
  frequency_penalty: z.number(), top_logprobs: int, temperature: z.number(), reasoning: nullable(z.object({})),
  user: nullable(z.string()), usage: nullable(usage), max_output_tokens: nullable(int), max_tool_calls: nullable(int),
  store: z.boolean(), background: z.boolean(), service_tier: z.string(), metadata: z.any(),
  safety_identifier: nullable(z.string()), prompt_cache_key: nullable(z.string()),
});

const ev = (type, fields) => z.object({ type: z.literal(type), sequence_number: int, ...fields });
const at = { item_id: z.string(), output_index: int };
const streamingEvent = z.discriminatedUnion("type", [
  ...["response.created", "response.queued", "response.in_progress", "response.completed", "response.failed", "response.incomplete"]
    .map((t) => ev(t, { response: responseResource })),
  ev("response.output_item.added", { output_index: int, item: nullable(item) }),
  ev("response.output_item.done", { output_index: int, item: nullable(item) }),
  ev("response.content_part.added", { ...at, content_index: int, part }),
  ev("response.content_part.done", { ...at, content_index: int, part }),
  ev("response.output_text.delta", { ...at, content_index: int, delta: z.string() }),
  ev("response.output_text.done", { ...at, content_index: int, text: z.string() }),
  ev("response.reasoning_text.delta", { ...at, content_index: int, delta: z.string() }),
  ev("response.reasoning_text.done", { ...at, content_index: int, text: z.string() }),
  ev("response.function_call_arguments.delta", { ...at, delta: z.string() }),
  ev("response.function_call_arguments.done", { ...at, arguments: z.string() }),
  ev("error", { error: z.any() }),
]);

// The suite's seven requests.
const weather = { type: "function", name: "get_weather", description: "Get the current weather for a location",
  parameters: { type: "object", properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } }, required: ["location"] } };
const redHeart = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const user = (content) => ({ type: "message", role: "user", content });

const hasOutput = (r) => (r.output?.length ? [] : ["Response has no output items"]);
const hasOutputType = (type) => (r) => (r.output?.some((i) => i.type === type) ? [] : [`Expected output item of type "${type}" but none found`]);
const completed = (r) => (r.status === "completed" ? [] : [`Expected status "completed" but got "${r.status}"`]);
const streamed = (_, s) => (s.events.length ? [] : ["No streaming events received"]);
const streamSchema = (_, s) => s.errors;
const functionCallEvents = (_, s) => {
  const errors = [];
  const has = (pred, what) => s.events.some(pred) || errors.push("Missing " + what);
  has((e) => e.type === "response.output_item.added" && e.item?.type === "function_call", "response.output_item.added event with function_call item");
  has((e) => e.type === "response.function_call_arguments.delta", "response.function_call_arguments.delta event");
  has((e) => e.type === "response.function_call_arguments.done", "response.function_call_arguments.done event");
  has((e) => e.type === "response.output_item.done" && e.item?.type === "function_call", "response.output_item.done event with function_call item");
  return errors;
};

const tests = [
  { id: "basic-response", body: { input: [user("Say hello in exactly 3 words.")] }, validators: [hasOutput, completed] },
  { id: "streaming-response", stream: true, body: { input: [user("Count from 1 to 5.")] }, validators: [streamed, streamSchema, completed] },
  { id: "system-prompt", body: { input: [{ type: "message", role: "system", content: "You are a pirate. Always respond in pirate speak." }, user("Say hello.")] },
    validators: [hasOutput, completed] },
  { id: "tool-calling", body: { input: [user("What's the weather like in San Francisco?")], tools: [weather] }, validators: [hasOutput, hasOutputType("function_call")] },
  { id: "tool-calling-streaming", stream: true, body: { input: [user("What's the weather like in San Francisco?")], tools: [weather] },
    validators: [streamed, streamSchema, functionCallEvents] },
  { id: "image-input", body: { input: [user([{ type: "input_text", text: "What do you see in this image? Answer in one sentence." },
    { type: "input_image", image_url: redHeart }])] }, validators: [hasOutput, completed] },
  { id: "multi-turn", body: { input: [user("My name is Alice."), { type: "message", role: "assistant", content: "Hello Alice! Nice to meet you. How can I help you today?" },
    user("What is my name?")] }, validators: [hasOutput, completed] },
];

// parseSSE reads a stream as the suite does: each event's JSON checked
// against the event schemas, the last completed/failed/incomplete event's
// response kept.
async function parseSSE(res) {
  const events = [];
  const errors = [];
  let finalResponse = null;
  const text = await res.text();
  for (const block of text.split("\n\n")) {
    const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
    if (!data || data === "[DONE]") continue;
    let parsed;
    try {
      parsed = JSON.parse(data);
    } catch {
      errors.push("Failed to parse event data: " + data);
      continue;
    }
    events.push(parsed);
    const v = streamingEvent.safeParse(parsed);
    if (!v.success) errors.push(`Event validation failed for ${parsed.type}: ${JSON.stringify(v.error.issues)}`);
    if (["response.completed", "response.failed", "response.incomplete"].includes(parsed.type)) finalResponse = parsed.response;
  }
  events.forEach((e, i) => e.sequence_number === i || errors.push(`Event ${i} (${e.type}) has sequence_number ${e.sequence_number}`));
  return { events, errors, finalResponse };
}

let passed = 0;
let failed = 0;
for (const t of tests) {
  const errors = [];
  try {
    const res = await fetch(baseUrl + "/responses", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer " + apiKey },
      body: JSON.stringify({ model, ...t.body, stream: !!t.stream }),
    });
    if (!res.ok) {
      errors.push(`HTTP ${res.status}: ${await res.text()}`);
    } else {
      const sse = t.stream ? await parseSSE(res) : { events: [], errors: [] };
      const data = t.stream ? sse.finalResponse : await res.json();
      const parsed = responseResource.safeParse(data);
      if (!parsed.success) {
        errors.push(...parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`));
      } else {
        errors.push(...t.validators.flatMap((v) => v(parsed.data, sse)));
      }
    }
  } catch (e) {
    errors.push(String(e?.stack ?? e));
  }
  if (errors.length) {
    failed++;
    console.log(`FAIL ${t.id}: ${errors.join("; ")}`);
  } else {
    passed++;
    console.log(`ok ${t.id}`);
  }
}
// harnest's own checks, beyond the suite's requests: several function
// calls in one response answered together, "store": false, a response
// read back repeating its request, input_items while the turn runs.
const headers = { "Content-Type": "application/json", Authorization: "Bearer " + apiKey };
const post = (body, path = "/responses") => fetch(baseUrl + path, { method: "POST", headers, body: JSON.stringify({ model, ...body }) });
const get = (path) => fetch(baseUrl + path, { headers });
const clock = { ...weather, name: "get_time", description: "Get the local time for a location" };
const callOutput = (call, output) => ({ type: "function_call_output", call_id: call.call_id, output });

const extraChecks = [
  ["parallel-function-calls", async () => {
    const r1 = await (await post({ input: "Weather and time in San Francisco?", tools: [weather, clock] })).json();
    const calls = (r1.output ?? []).filter((i) => i.type === "function_call");
    if (calls.length !== 2) return [`Expected 2 function_call items, got ${JSON.stringify(r1.output)}`];
    const errors = [];
    const partial = await post({ previous_response_id: r1.id, input: [callOutput(calls[0], "sunny")] });
    const refusal = await partial.json();
    if (partial.status !== 400 || !refusal.error?.message?.includes(calls[1].call_id)) errors.push(`One output of two: HTTP ${partial.status} ${JSON.stringify(refusal)}`);
    const r2 = await (await post({ previous_response_id: r1.id, input: [callOutput(calls[1], "noon"), callOutput(calls[0], "sunny")] })).json();
    if (r2.status !== "completed" || !r2.output_text?.includes('get_weather said: "sunny", get_time said: "noon"')) errors.push(`Answered both: ${r2.status} ${r2.output_text}`);
    return errors;
  }],
  ["store-false", async () => {
    const r = await (await post({ input: [user("Forget this.")], store: false })).json();
    const errors = r.store === false && r.status === "completed" ? [] : [`Response: store ${r.store}, status ${r.status}`];
    const got = await get("/responses/" + r.id);
    if (got.status !== 404) errors.push(`GET of a response not stored: HTTP ${got.status}`);
    const next = await post({ input: [user("Again.")], previous_response_id: r.id });
    if (next.status !== 404) errors.push(`previous_response_id naming a response not stored: HTTP ${next.status}`);
    return errors;
  }],
  ["retrieve-repeats-request", async () => {
    const body = { input: [user("Hi.")], instructions: "Be brief.", tools: [weather], tool_choice: "none", temperature: 0.2, top_p: 0.9, max_output_tokens: 64 };
    const r = await (await post(body)).json();
    const got = await (await get("/responses/" + r.id)).json();
    const parsed = responseResource.safeParse(got);
    const errors = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    for (const k of ["instructions", "tools", "tool_choice", "temperature", "top_p", "max_output_tokens"]) {
      const want = JSON.stringify(k === "tools" ? r[k] : body[k]);
      if (JSON.stringify(r[k]) !== JSON.stringify(got[k]) || JSON.stringify(r[k]) !== want) errors.push(`${k}: created ${JSON.stringify(r[k])}, retrieved ${JSON.stringify(got[k])}, sent ${want}`);
    }
    return errors;
  }],
  ["input-items-while-running", async () => {
    const r = await (await post({ input: "slow slow slow slow slow", background: true })).json();
    const list = await (await get(`/responses/${r.id}/input_items`)).json();
    const status = (await (await get("/responses/" + r.id)).json()).status;
    await post({}, `/responses/${r.id}/cancel`);
    const text = list.data?.[0]?.content?.[0]?.text;
    return text === "slow slow slow slow slow" && ["queued", "in_progress"].includes(status) ? [] : [`While ${status}: ${JSON.stringify(list)}`];
  }],
];
for (const [id, check] of extraChecks) {
  let errors;
  try {
    errors = await check();
  } catch (e) {
    errors = [String(e?.stack ?? e)];
  }
  if (errors.length) {
    failed++;
    console.log(`FAIL ${id}: ${errors.join("; ")}`);
  } else {
    passed++;
    console.log(`ok ${id}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
