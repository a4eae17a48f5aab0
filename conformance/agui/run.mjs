// Drives harnest's POST /agui with the real @ag-ui/client and prints one JSON
// report on stdout. The Go tests in agui/ start the servers and judge the
// report; this script only runs the client and records what it saw.
//
// usage: node run.mjs <client> <scenario> <url> [bearer-token]
//   client:   1.0.0 (@ag-ui/client) or 0.0.59 (the generation CopilotKit 1.75 embeds)
//   scenario: text | handshake | thinking | state | frontend_tool | approve | deny | timeout | failure
//
// A report: {client, scenario, runs: [{name, resolved, error?, events, finished?, runError?,
// failed?, result?}], messages, state, pendingInterrupts, warnings}.
const [clientVersion, scenario, url, token] = process.argv.slice(2);
if (!clientVersion || !scenario || !url) {
  console.error("usage: node run.mjs <1.0.0|0.0.59> <scenario> <url> [token]");
  process.exit(2);
}
const lib = clientVersion === "0.0.59" ? await import("agui-client-0059") : await import("@ag-ui/client");

// The client reports some problems only as console warnings (a state patch
// that does not apply, an unknown event dropped): keep them for the report.
const warnings = [];
console.warn = (...a) => warnings.push("warn: " + a.map(String).join(" ").slice(0, 500));
console.error = (...a) => warnings.push("error: " + a.map((x) => (x instanceof Error ? x.message : String(x))).join(" ").slice(0, 500));
console.debug = () => {};

const runs = [];

function newAgent(content, extra = {}) {
  return new lib.HttpAgent({
    url,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    threadId: `th-${scenario}-${clientVersion}-${Date.now()}-${Math.random().toString(16).slice(2)}`,
    initialMessages: content === undefined ? [] : [{ id: "u1", role: "user", content }],
    initialState: { seeded: true },
    ...extra,
  });
}

// runOnce runs the agent once and records what the client saw.
async function runOnce(agent, name, params = {}) {
  const run = { name, resolved: false, events: [] };
  try {
    const r = await agent.runAgent(params, {
      onEvent: ({ event }) => {
        run.events.push(event.type);
      },
      onRunFinishedEvent: (p) => {
        run.finished = { outcome: p.outcome, result: p.result, interrupts: p.interrupts, pendingToolCallIds: p.pendingToolCallIds };
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

const locationTool = {
  name: "get_location",
  description: "Where the user is",
  parameters: { type: "object", properties: { input: { type: "string" } }, required: ["input"], additionalProperties: false },
};

let agent;
switch (scenario) {
  case "text":
    agent = newAgent("hello from AG-UI");
    await runOnce(agent, "text", { forwardedProps: { userId: "mallory", user_id: "mallory" }, context: [{ description: "time zone", value: "UTC" }] });
    agent.addMessage({ id: "u2", role: "user", content: "and again" });
    await runOnce(agent, "second turn");
    break;
  case "handshake":
    agent = newAgent(undefined);
    await runOnce(agent, "handshake");
    break;
  case "thinking":
    agent = newAgent("think and use a tool");
    await runOnce(agent, "thinking");
    break;
  case "state":
    agent = newAgent("update the state");
    await runOnce(agent, "state");
    agent.addMessage({ id: "u2", role: "user", content: "again" });
    await runOnce(agent, "state again");
    break;
  case "frontend_tool": {
    agent = newAgent("where am I");
    const first = await runOnce(agent, "tool call", { tools: [locationTool] });
    const calls = agent.messages.flatMap((m) => m.toolCalls ?? []).filter((c) => c.function.name === "get_location");
    const pending = first.finished?.pendingToolCallIds ?? calls.map((c) => c.id);
    for (const id of pending) agent.addMessage({ id: `tool-${id}`, role: "tool", toolCallId: id, content: "Oslo" });
    await runOnce(agent, "tool answer", { tools: [locationTool] });
    break;
  }
  case "approve":
  case "deny": {
    agent = newAgent("send it");
    await runOnce(agent, "interrupt");
    const interrupts = agent.pendingInterrupts ?? [];
    // A run that does not resume them is refused by the client itself.
    const refused = await runOnce(agent, "refused without resume");
    refused.refusedLocally = !refused.resolved && refused.events.length === 0;
    const resume = lib.buildResumeArray(
      interrupts,
      Object.fromEntries(interrupts.map((i) => [i.id, { status: "resolved", payload: { approved: scenario === "approve" } }])),
    );
    await runOnce(agent, "resume", { resume });
    break;
  }
  case "timeout":
    agent = newAgent("this takes too long");
    await runOnce(agent, "timeout");
    break;
  case "failure":
    agent = newAgent("this fails");
    await runOnce(agent, "failure");
    break;
  default:
    console.error(`unknown scenario ${scenario}`);
    process.exit(2);
}

const report = {
  client: clientVersion,
  scenario,
  threadId: agent.threadId,
  runs,
  messages: agent.messages,
  state: agent.state,
  pendingInterrupts: agent.pendingInterrupts ?? [],
  warnings,
};
process.stdout.write(JSON.stringify(report) + "\n");
