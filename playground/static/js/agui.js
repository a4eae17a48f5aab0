// agui.js: the AG-UI transport, POST /agui. The session is the AG-UI
// thread; AG-UI events arrive as unnamed SSE data frames and are shown in
// the same message view as the neutral events. An approval or client tool
// ends the run with an interrupt, answered by a next run's "resume".

import { stream } from "./api.js";

let runs = 0;

function newID(prefix) {
  runs++;
  return prefix + "-" + Date.now().toString(36) + "-" + runs;
}

/** aguiTransport runs turns over AG-UI and answers interrupts. */
export const aguiTransport = {
  /** start runs the turn: text is the newest user message. */
  async start(run, sessionId, text) {
    run.aguiMessage = { id: newID("msg"), role: "user", content: text };
    await runOnce(run, sessionId, undefined);
  },

  async answerApproval(run, info, decision) {
    // A bare approve or deny is {"approved": …}, which every approval
    // takes; a richer answer goes as it is (the interrupt's responseSchema).
    const bare = Object.keys(decision).length === 1 && (decision.decision === "approve" || decision.decision === "deny");
    const payload = bare ? { approved: decision.decision === "approve" } : decision;
    resumeLater(run, [{ interruptId: info.id, status: "resolved", payload }]);
  },

  async answerClientTool(run, info, output) {
    resumeLater(run, [{ interruptId: info.id, status: "resolved", payload: output }]);
  },
};

// resumeLater starts the resuming run without making the card wait for it.
function resumeLater(run, resume) {
  run.status = "in_progress";
  run.view.setBusy(true);
  runOnce(run, run.sessionId, resume).catch((e) => {
    if (e.name !== "AbortError") run.fail(e.message);
  });
}

async function runOnce(run, sessionId, resume) {
  const body = {
    threadId: sessionId,
    runId: newID("run"),
    protocolVersion: "1.0",
    messages: [run.aguiMessage],
    state: {},
    tools: [],
    context: [],
    forwardedProps: {},
  };
  if (resume) body.resume = resume;
  run.abort = new AbortController();
  const tools = new Map();
  await stream("/agui", body, (f) => onEvent(run, f.data, tools), { signal: run.abort.signal });
  if (!run.done && run.status !== "requires_action") run.end();
}

// onEvent shows one AG-UI event.
function onEvent(run, ev, tools) {
  if (!ev || typeof ev !== "object") return;
  if (!run.firstEventAt) run.firstEventAt = performance.now();
  run.seen.push(ev);
  const v = run.view;
  switch (ev.type) {
    case "TEXT_MESSAGE_CONTENT":
    case "TEXT_MESSAGE_CHUNK":
      v.appendText(ev.delta || "");
      break;
    case "REASONING_MESSAGE_CONTENT":
    case "THINKING_TEXT_MESSAGE_CONTENT":
      v.appendThinking(ev.delta || "");
      break;
    case "TOOL_CALL_START":
      tools.set(ev.toolCallId, { name: ev.toolCallName, args: "" });
      break;
    case "TOOL_CALL_ARGS": {
      const t = tools.get(ev.toolCallId);
      if (t) t.args += ev.delta || "";
      break;
    }
    case "TOOL_CALL_END": {
      const t = tools.get(ev.toolCallId);
      if (t) v.toolCall(ev.toolCallId, t.name, parseMaybe(t.args));
      break;
    }
    case "TOOL_CALL_RESULT":
      v.toolResult(ev.toolCallId, "", parseMaybe(ev.content));
      break;
    case "STATE_SNAPSHOT":
    case "STATE_DELTA":
      if (run.onStateDelta) run.onStateDelta();
      break;
    case "CUSTOM":
      v.note("Custom event " + ev.name + ": " + JSON.stringify(ev.value), "activity");
      break;
    case "RUN_FINISHED":
      finished(run, ev);
      break;
    case "RUN_ERROR":
      run.fail(ev.message || "The AG-UI run failed.");
      break;
    default:
      break;
  }
  run.trace.update(run);
}

// finished ends the run, or shows the interrupts it stopped for.
function finished(run, ev) {
  const outcome = ev.outcome;
  const interrupts = outcome && outcome.type === "interrupt" ? outcome.interrupts || [] : [];
  if (interrupts.length === 0) {
    run.status = outcome && outcome.type === "cancelled" ? "cancelled" : "completed";
    run.end();
    return;
  }
  for (const it of interrupts) {
    const h = (it.metadata && it.metadata.harnest) || {};
    if (h.callId && !run.responseId) run.responseId = h.callId;
    if (h.type === "client_tool") {
      run.askClientTool({ id: it.id, name: h.name, arguments: h.arguments });
    } else {
      run.askApproval({ id: it.id, action: h.action, message: it.message || h.message, arguments: h.arguments, answers: h.answers });
    }
  }
  run.footer();
}

function parseMaybe(text) {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch (e) {
    return text;
  }
}
