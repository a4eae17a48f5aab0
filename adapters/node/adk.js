// The Google ADK JS adapter: serveAgent turns an ADK agent (an LlmAgent or
// any BaseAgent) into a worker of docs/worker-protocol.md.
//
//   import { LlmAgent } from "@google/adk";
//   import { serveAgent } from "@harnest/adapters/adk";
//   serveAgent(new LlmAgent({ name: "helper", model, instruction, tools }));
//
// Each turn runs the agent with ADK's Runner on an in-memory session service:
// one ADK session per harnest session (the same id), created from the turn's
// state and history when this process does not have it yet or when it is out
// of date (another worker or replica ran the session's last turn). The run's
// events become protocol lines:
//
//   partial text                    -> text deltas (thoughts -> thinking)
//   function calls / responses      -> tool_call / tool_result
//   tool confirmation, long-running -> approval_request; the answer resumes the run
//   event.actions.stateDelta        -> state (keys starting "temp:" are left out)
//   usage metadata                  -> one metadata line at the end of the turn
//   a steer line (a message the user handed to the running turn)
//                                   -> a new user content when the run ends or
//                                      pauses: the next pass runs with it
//
// Resuming (docs/worker-protocol.md, "Resuming"): after each completed tool
// step (a function response event, nothing waiting for an answer) the ADK
// session's events and state go out as a checkpoint line. A turn run again
// after its replica was lost gets the last one back: the session is rebuilt
// from it and the run goes on from that function response, so completed tool
// calls are not run again and their output is not written again.
//
// A confirmation answer goes back to ADK as the `adk_request_confirmation`
// function response ({confirmed}); a long-running tool's call gets the
// function response {approved, decision}.

import { InMemorySessionService, Runner, StreamingMode, createEvent } from "@google/adk";

import { serve } from "./worker.js";

/** The function-call name with which ADK asks to confirm a tool call. */
const confirmationCallName = "adk_request_confirmation";

/** The first words of the hint ADK writes when a tool gives none of its own. */
const defaultHintStart = "Please approve or reject the tool call";

/** Re-exported so a folder without its own node_modules can build an agent. */
export * as adk from "@google/adk";

/**
 * serveAgent serves agent as a harnest worker until stdin closes.
 * @param {import("@google/adk").BaseAgent} agent the root agent.
 * @param {{appName?: string, framework?: string, serveOptions?: object}} [options]
 *   appName: the ADK app name (default: the agent's name); framework: the
 *   metadata line's framework (default "google-adk"); serveOptions: passed to serve.
 */
export function serveAgent(agent, options = {}) {
  const adapter = createAdapter(agent, options);
  return serve((turn, out) => adapter.runTurn(turn, out), options.serveOptions);
}

/**
 * createAdapter returns the turn handler serveAgent uses, for tests and for
 * callers that run serve themselves: {runTurn(turn, out)}.
 */
export function createAdapter(agent, options = {}) {
  const appName = options.appName || agent.name;
  const framework = options.framework || "google-adk";
  const sessionService = new InMemorySessionService();
  const runner = new Runner({ appName, agent, sessionService });
  // sessionId -> {input, output}: the last turn this process ran for it.
  const lastTurns = new Map();

  async function runTurn(turn, out) {
    const userId = turn.userId || "user";
    const key = { appName, userId, sessionId: turn.sessionId };
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const progress = { text: "", finishReason: undefined, usage };
    // A resumed turn goes on from its checkpoint's function response.
    let message = await restoreSession(sessionService, key, turn.checkpoint, progress);
    if (!message) {
      await ensureSession(sessionService, appName, agent.name, userId, turn, lastTurns.get(turn.sessionId));
      message = { role: "user", parts: [{ text: turn.input }] };
    }
    // Each pass runs the agent until it ends or pauses on requests.
    for (let pass = 0; message && pass < 50; pass++) {
      const requests = [];
      const events = runner.runAsync({
        userId,
        sessionId: turn.sessionId,
        newMessage: message,
        runConfig: { streamingMode: StreamingMode.SSE },
        abortSignal: out.signal,
      });
      const stream = new EventTranslator(out, progress, requests);
      for await (const event of events) {
        stream.translate(event);
        if (stream.stepDone && requests.length === 0) await sendCheckpoint(sessionService, key, out, progress);
        stream.stepDone = false;
      }
      message = await answerRequests(requests, out, runner, userId, turn.sessionId);
      if (!message) message = steerContent(out);
    }
    out.metadata(metadataLine(framework, agent, progress));
    lastTurns.set(turn.sessionId, { input: turn.input, output: progress.text });
  }

  return { runTurn, sessionService, runner };
}

/** steerContent is the turn's steers as one new user content, or null when none waits. */
function steerContent(out) {
  const steers = typeof out.takeSteers === "function" ? out.takeSteers() : [];
  if (steers.length === 0) return null;
  return { role: "user", parts: steers.map((steer) => ({ text: steer.input })) };
}

/** metadataLine is the turn's metadata: framework, model, usage, finish reason. */
function metadataLine(framework, agent, progress) {
  const line = { framework };
  const model = typeof agent.model === "string" ? agent.model : agent.model?.model;
  if (model) line.model = model;
  if (progress.usage.inputTokens || progress.usage.outputTokens || progress.usage.totalTokens) {
    line.usage = progress.usage;
  }
  if (progress.finishReason) line.finishReason = String(progress.finishReason);
  return line;
}

/**
 * EventTranslator writes ADK events as protocol lines and collects the
 * requests (confirmations, long-running calls) a pass pauses on.
 */
class EventTranslator {
  constructor(out, progress, requests) {
    this.out = out;
    this.progress = progress;
    this.requests = requests;
    // Whether partial text was streamed since the last complete event: the
    // complete event then repeats it and its text is not sent again.
    this.streamed = false;
    // Whether the last event completed a tool step (a resume point).
    this.stepDone = false;
  }

  translate(event) {
    if (event.author === "user") return;
    const parts = event.content?.parts || [];
    if (event.partial) {
      for (const part of parts) this.sendText(part);
      this.streamed = true;
      return;
    }
    const longRunning = new Set(event.longRunningToolIds || []);
    for (const part of parts) {
      if (!this.streamed) this.sendText(part);
      if (part.functionCall) this.sendCall(part.functionCall, longRunning);
      if (part.functionResponse) this.sendResult(part.functionResponse);
      if (part.functionResponse && part.functionResponse.name !== confirmationCallName) this.stepDone = true;
    }
    this.streamed = false;
    this.sendState(event.actions?.stateDelta);
    this.addUsage(event);
  }

  sendText(part) {
    if (typeof part.text !== "string" || part.text === "") return;
    if (part.thought) {
      this.out.thinking(part.text);
      return;
    }
    this.out.text(part.text);
    this.progress.text += part.text;
  }

  sendCall(call, longRunning) {
    if (call.name === confirmationCallName) {
      const original = call.args?.originalFunctionCall || {};
      const hint = call.args?.toolConfirmation?.hint;
      this.requests.push({
        kind: "confirmation",
        callId: call.id,
        action: original.name || "tool",
        message: hint && !hint.startsWith(defaultHintStart) ? hint : undefined,
        arguments: original.args || {},
      });
      return;
    }
    this.out.toolCall({ id: call.id, name: call.name, arguments: call.args || {} });
    if (longRunning.has(call.id)) {
      this.requests.push({ kind: "longRunning", callId: call.id, action: call.name, arguments: call.args || {} });
    }
  }

  sendResult(response) {
    if (response.name === confirmationCallName) return;
    this.out.toolResult({ callId: response.id, name: response.name, output: response.response ?? null });
  }

  sendState(delta) {
    if (!delta) return;
    const kept = {};
    for (const [key, value] of Object.entries(delta)) {
      if (!key.startsWith("temp:")) kept[key] = value;
    }
    if (Object.keys(kept).length > 0) this.out.state(kept);
  }

  addUsage(event) {
    const u = event.usageMetadata;
    if (u) {
      this.progress.usage.inputTokens += u.promptTokenCount || 0;
      this.progress.usage.outputTokens += u.candidatesTokenCount || 0;
      this.progress.usage.totalTokens += u.totalTokenCount || 0;
    }
    if (event.finishReason) this.progress.finishReason = event.finishReason;
  }
}

/**
 * answerRequests asks a human about each request of a pass and returns the
 * user message that resumes the run with the answers, or null when there is
 * nothing to resume. After a refusal the run is resumed with the refusals
 * (so the ADK session has no unanswered call) and its output is dropped.
 */
async function answerRequests(requests, out, runner, userId, sessionId) {
  if (requests.length === 0) return null;
  const parts = [];
  let refused = false;
  for (const request of requests) {
    const decision = refused
      ? "deny"
      : await out.approval({ action: request.action, message: request.message, arguments: request.arguments });
    const approved = decision === "approve";
    refused = refused || !approved;
    if (request.kind === "confirmation") {
      parts.push({ functionResponse: { id: request.callId, name: confirmationCallName, response: { confirmed: approved } } });
    } else {
      parts.push({ functionResponse: { id: request.callId, name: request.action, response: { approved, decision } } });
    }
  }
  const message = { role: "user", parts };
  if (!refused) return message;
  // Record the refusal in the ADK session without sending anything more.
  const events = runner.runAsync({ userId, sessionId, newMessage: message, abortSignal: out.signal });
  for await (const event of events) void event;
  return null;
}

/**
 * ensureSession makes the ADK session for turn current: it is created from
 * turn.state and turn.history unless this process ran the session's last
 * turn (the history ends with that turn's input and answer); an existing
 * session then gets the keys of turn.state that differ.
 */
async function ensureSession(sessionService, appName, agentName, userId, turn, lastTurn) {
  const key = { appName, userId, sessionId: turn.sessionId };
  const state = turn.state || {};
  const existing = await sessionService.getSession(key);
  if (existing && lastTurn && historyEndsWith(turn.history || [], lastTurn)) {
    const changed = {};
    for (const [name, value] of Object.entries(state)) {
      if (JSON.stringify(existing.state[name]) !== JSON.stringify(value)) changed[name] = value;
    }
    if (Object.keys(changed).length > 0) {
      await sessionService.appendEvent({
        session: existing,
        event: createEvent({ author: "user", invocationId: "harnest-state", actions: { stateDelta: changed } }),
      });
    }
    return;
  }
  if (existing) await sessionService.deleteSession(key);
  const session = await sessionService.createSession({ ...key, state });
  for (const message of turn.history || []) {
    const text = messageText(message.content);
    if (!text) continue;
    const isUser = message.role === "user";
    await sessionService.appendEvent({
      session,
      event: createEvent({
        author: isUser ? "user" : agentName,
        invocationId: "harnest-history",
        content: { role: isUser ? "user" : "model", parts: [{ text }] },
      }),
    });
  }
}

/** historyEndsWith reports whether history's last two messages are lastTurn's. */
function historyEndsWith(history, lastTurn) {
  if (history.length < 2) return false;
  const [user, answer] = history.slice(-2);
  return messageText(user.content) === lastTurn.input && messageText(answer.content) === lastTurn.output;
}

/** messageText is a transcript message's text: the string, or its text parts joined. */
function messageText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.filter((p) => p && typeof p.text === "string").map((p) => p.text).join("\n");
  }
  return "";
}

/**
 * sendCheckpoint writes the ADK session (its events and state) and the text
 * written so far as a checkpoint line: {adk: {state, events, text}}.
 */
async function sendCheckpoint(sessionService, key, out, progress) {
  if (out.signal.aborted || typeof out.checkpoint !== "function") return;
  const session = await sessionService.getSession(key);
  if (!session) return;
  out.checkpoint(JSON.parse(JSON.stringify({ adk: { state: session.state || {}, events: session.events || [], text: progress.text } })));
}

/**
 * restoreSession rebuilds the ADK session from a checkpoint sendCheckpoint
 * wrote, but for its last event, a function response: it returns that event
 * as the message that resumes the run (null when there is no such checkpoint).
 */
async function restoreSession(sessionService, key, checkpoint, progress) {
  const saved = checkpoint && checkpoint.adk;
  const events = saved && Array.isArray(saved.events) ? saved.events : [];
  const last = events[events.length - 1];
  const parts = last && last.content && Array.isArray(last.content.parts) ? last.content.parts : [];
  if (!parts.some((p) => p && p.functionResponse)) return null;
  if (await sessionService.getSession(key)) await sessionService.deleteSession(key);
  const state = saved.state && typeof saved.state === "object" ? saved.state : {};
  const session = await sessionService.createSession({ ...key, state });
  for (const event of events.slice(0, -1)) await sessionService.appendEvent({ session, event: createEvent(event) });
  progress.text = typeof saved.text === "string" ? saved.text : "";
  return { role: "user", parts };
}
