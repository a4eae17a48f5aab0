// Smoke test through the CopilotKit runtime: a CopilotRuntime (v2, the
// in-memory runner, as a CopilotKit app would host it) fronts harnest's
// POST /agui through HttpAgent, and a client drives the runtime's
// /api/copilotkit/agent/<id>/run route, as a CopilotKit frontend does. Prints
// one JSON report on stdout (the same run shape as run.mjs).
//
// usage: node copilotkit.mjs '<json: {"text": url, "state": url, "tools": url, "approval": url, "token": bearer}>'
import http from "node:http";
import { createRequire } from "node:module";
import { CopilotRuntime, InMemoryAgentRunner } from "@copilotkit/runtime/v2";
import { createCopilotNodeListener } from "@copilotkit/runtime/v2/node";

// The runtime's agents use the @ag-ui/client the runtime itself pins.
const runtimeRequire = createRequire(new URL("./node_modules/@copilotkit/runtime/package.json", import.meta.url));
const { HttpAgent: RuntimeHttpAgent } = runtimeRequire("@ag-ui/client");
// The driver is the 0.0.59 client, the generation CopilotKit's frontend embeds.
const { HttpAgent } = await import("agui-client-0059");

const targets = JSON.parse(process.argv[2] ?? "{}");
const warnings = [];
console.warn = (...a) => warnings.push("warn: " + a.map(String).join(" ").slice(0, 500));
console.error = (...a) => warnings.push("error: " + a.map((x) => (x instanceof Error ? x.message : String(x))).join(" ").slice(0, 500));
console.log = () => {};
console.info = () => {};
console.debug = () => {};

const headers = targets.token ? { Authorization: `Bearer ${targets.token}` } : {};
const agents = {};
for (const id of ["text", "state", "tools", "approval"]) {
  if (targets[id]) agents[id] = new RuntimeHttpAgent({ url: targets[id], headers });
}
const runtime = new CopilotRuntime({ agents, runner: new InMemoryAgentRunner() });
const server = http.createServer(createCopilotNodeListener({ runtime, basePath: "/api/copilotkit" }));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}/api/copilotkit`;

const runs = [];
const finals = {};

async function runOnce(agent, name, params = {}) {
  const run = { name, resolved: false, events: [] };
  try {
    const r = await agent.runAgent(params, {
      onEvent: ({ event }) => run.events.push(event.type),
      onRunFinishedEvent: (p) => {
        run.finished = { outcome: p.outcome, result: p.result, interrupts: p.interrupts };
      },
      onRunErrorEvent: ({ event }) => {
        run.runError = { message: event.message, code: event.code };
      },
      onRunFailed: ({ error }) => {
        run.failed = error.message;
      },
    });
    run.resolved = true;
    run.result = r.result;
  } catch (e) {
    run.error = `${e.constructor.name}: ${e.message}`;
  }
  runs.push(run);
  return run;
}

function driver(id, content) {
  return new HttpAgent({
    url: `${base}/agent/${id}/run`,
    threadId: `cpk-${id}-${Date.now()}-${Math.random().toString(16).slice(2)}`,
    initialMessages: [{ id: "u1", role: "user", content }],
    initialState: { seeded: true },
  });
}

function record(id, agent) {
  finals[id] = { messages: agent.messages, state: agent.state, pendingInterrupts: agent.pendingInterrupts ?? [] };
}

let info = null;
try {
  info = await (await fetch(`${base}/info`)).json();
} catch (e) {
  warnings.push("info: " + e.message);
}

if (agents.text) {
  const a = driver("text", "hello through CopilotKit");
  await runOnce(a, "text");
  record("text", a);
}
if (agents.state) {
  const a = driver("state", "update the state");
  await runOnce(a, "state");
  record("state", a);
}
if (agents.tools) {
  const tools = [{ name: "get_location", description: "Where the user is", parameters: { type: "object", properties: { input: { type: "string" } } } }];
  const a = driver("tools", "where am I");
  await runOnce(a, "tool call", { tools });
  for (const call of a.messages.flatMap((m) => m.toolCalls ?? [])) {
    if (!a.messages.some((m) => m.role === "tool" && m.toolCallId === call.id)) {
      a.addMessage({ id: `tool-${call.id}`, role: "tool", toolCallId: call.id, content: "Oslo" });
    }
  }
  await runOnce(a, "tool answer", { tools });
  record("tools", a);
}
if (agents.approval) {
  const a = driver("approval", "send it");
  await runOnce(a, "interrupt");
  const resume = (a.pendingInterrupts ?? []).map((i) => ({ interruptId: i.id, status: "resolved", payload: { approved: true } }));
  await runOnce(a, "resume", { resume });
  record("approval", a);
}

server.close();
process.stdout.write(JSON.stringify({ info: info && { version: info.version, agents: Object.keys(info.agents ?? {}) }, runs, finals, warnings }) + "\n");
process.exit(0);
