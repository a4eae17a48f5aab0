// The LangGraph JS adapter: serveGraph turns a compiled LangGraph graph into
// a worker of docs/worker-protocol.md.
//
//   import { serveGraph } from "@harnest/adapters/langgraph";
//   serveGraph(builder.compile({ checkpointer: new MemorySaver() }));
//
// Per turn it runs the graph on the thread of the session
// (configurable.thread_id = the session id) and maps what the graph does to
// protocol lines:
//   - chat model tokens ("messages" stream mode)   -> text deltas
//   - AI tool calls and ToolMessages ("updates")    -> tool_call / tool_result
//   - interrupt(value) in a node                    -> approval_request, whose
//     answer resumes the graph with new Command({ resume: decision }); an
//     agent-inbox HumanInterrupt value ({action_request: {action, args},
//     config: {allow_edit, allow_respond, ...}, description}, or a list of
//     one) offers edit and respond as its config allows, and resumes with
//     its HumanResponse list: [{type: "accept"|"edit"|"response"|"ignore", args}]
//   - the state keys the graph declares (except messages): read from the
//     session state when the turn starts, written back as state deltas.
//   - a steer line (a message the user handed to the running turn): a new
//     HumanMessage in the graph's input when the graph's run ends, after which
//     the graph runs again on the thread, within the same turn.
// When the checkpointer has nothing for the thread (a new process, another
// replica), the session transcript the server sends is the history.
//
// Resuming (docs/worker-protocol.md, "Resuming"): after each superstep that
// leaves work to do, the graph's checkpoint (as its checkpointer's serializer
// writes it) goes out as a checkpoint line. A turn run again after its
// replica was lost gets the last one back: it is put into this process's
// checkpointer and the graph continues from it (input null), so completed
// nodes are not run again and their output is not written again.

import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { Command, MemorySaver, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";

import { checkpointMaxBytes, log, serve } from "./worker.js";

// The LangChain packages, for code that cannot resolve them itself (the
// examples in this repository import them from here). Elsewhere, import the
// packages directly: these are the very same modules.
export * as langgraph from "@langchain/langgraph";
export * as prebuilt from "@langchain/langgraph/prebuilt";
export * as messages from "@langchain/core/messages";
export * as tools from "@langchain/core/tools";
export * as chatModels from "@langchain/core/language_models/chat_models";
export * as outputs from "@langchain/core/outputs";
export * as functionCalling from "@langchain/core/utils/function_calling";

/** How many interrupts one turn may answer before it fails (a loop guard). */
const maxInterrupts = 20;

/**
 * serveGraph serves graph as a worker until stdin ends. Options:
 *   framework   the metadata framework name ("langgraph")
 *   stateKeys   the state keys shared with the session (default: the graph's
 *               declared channels, except messages and internal ones)
 *   approval(value) -> {action, message, arguments}: reads an interrupt value
 *               (default: its action/message/arguments or args fields)
 *   resume(decision, value, answer) -> the Command resume value (default:
 *               decision, "approve" | "deny" | "expired"; for a
 *               HumanInterrupt value, its HumanResponse list)
 *   checkpoints  send the graph's checkpoint after each superstep (default
 *               true; false: a turn run again starts over)
 *   input, write  passed to serve (tests).
 * A graph compiled without a checkpointer gets a MemorySaver.
 */
export function serveGraph(graph, options = {}) {
  if (!graph.checkpointer) graph.checkpointer = new MemorySaver();
  const keys = options.stateKeys || declaredStateKeys(graph);
  const framework = options.framework || "langgraph";
  const approvalOf = options.approval || defaultApproval;
  const resumeOf = options.resume || defaultResume;
  const checkpoints = options.checkpoints !== false;
  return serve((turn, out) => runTurn(graph, turn, out, { keys, framework, approvalOf, resumeOf, checkpoints }), options);
}

/** declaredStateKeys lists the graph's state channels but messages and internal ones. */
export function declaredStateKeys(graph) {
  const channels = (graph.builder && graph.builder.channels) || graph.channels || {};
  return Object.keys(channels).filter((key) => key !== "messages" && !key.startsWith("__") && !key.includes(":"));
}

async function runTurn(graph, turn, out, how) {
  const config = { configurable: { thread_id: turn.sessionId || turn.id }, signal: out.signal };
  out.metadata({ framework: how.framework });
  // A resumed turn continues from its checkpoint (input null).
  let next = null;
  if (!(await restoreCheckpoint(graph, config, turn.checkpoint))) {
    next = { messages: await turnMessages(graph, config, turn) };
    for (const key of how.keys) {
      if (key in turn.state) next[key] = turn.state[key];
    }
  }
  // Until this turn completes, the checkpoint may hold what the transcript
  // never will (a cancelled or failed run): the next turn then rebuilds.
  ranHere.delete(config.configurable.thread_id);

  const seen = { refused: false, usage: { inputTokens: 0, outputTokens: 0 }, checkpoints: how.checkpoints };
  for (let round = 0; ; round++) {
    const interrupts = await streamOnce(graph, next, config, out, seen);
    if (interrupts.length === 0) {
      const steers = takeSteers(out);
      if (steers.length === 0 || seen.refused) break;
      next = { messages: steers.map((steer) => new HumanMessage(steer.input)) };
      continue;
    }
    if (seen.refused) return; // a second interrupt after a refusal: leave the thread there
    if (round >= maxInterrupts) throw new Error(`the graph interrupted more than ${maxInterrupts} times in one turn`);
    const value = interrupts[0].value;
    const answer = await out.approvalAnswer(how.approvalOf(value));
    const decision = answer.decision;
    // After a refusal the protocol wants no more output: the graph still
    // runs to its end with the decision, so its checkpoint stays whole,
    // but nothing more is written.
    if (decision === "deny" || decision === "expired") {
      log(`langgraph adapter: approval ${decision}; the graph resumes with it, silently`);
      out = silent(out);
      seen.refused = true;
    }
    next = new Command({ resume: how.resumeOf(decision, value, answer) });
  }

  ranHere.set(config.configurable.thread_id, lastHistoryId(turn.history));
  const final = await graph.getState(config);
  out.state(changedKeys(how.keys, turn.state, (final && final.values) || {}));
  const { inputTokens, outputTokens } = seen.usage;
  if (inputTokens + outputTokens > 0) out.metadata({ framework: how.framework, usage: seen.usage });
}

// takeSteers takes the turn's steers (none when the out has no steering).
function takeSteers(out) {
  return typeof out.takeSteers === "function" ? out.takeSteers() : [];
}

// silent is out with every output line dropped.
function silent(out) {
  const drop = () => {};
  return { ...out, text: drop, thinking: drop, activity: drop, metadata: drop, toolCall: drop, toolResult: drop, state: drop, result: drop };
}

// streamOnce runs the graph once (a new input or a resume), writes its
// output and returns the interrupts it stopped at.
async function streamOnce(graph, input, config, out, seen) {
  const interrupts = [];
  const streamMode = seen.checkpoints ? ["messages", "updates", "checkpoints"] : ["messages", "updates"];
  // durability sync: a checkpoint is saved before the stream reports it.
  const stream = await graph.stream(input, { ...config, streamMode, durability: "sync" });
  for await (const [mode, chunk] of stream) {
    if (mode === "checkpoints") {
      if (worthCheckpoint(chunk, seen)) await sendCheckpoint(graph, chunk.config, out);
      continue;
    }
    if (mode === "messages") {
      const [message] = chunk;
      if (isAI(message) && typeof message.content === "string" && message.content !== "") {
        out.text(message.content);
      }
      continue;
    }
    for (const [node, update] of Object.entries(chunk || {})) {
      if (node === "__interrupt__") {
        interrupts.push(...update);
        continue;
      }
      seen.progressed = true;
      for (const message of updateMessages(update)) writeToolLines(message, out, seen);
    }
  }
  return interrupts;
}

// writeToolLines writes tool calls of AI messages and results of tool
// messages, and counts the usage the model reported.
function writeToolLines(message, out, seen) {
  if (isAI(message)) {
    for (const call of message.tool_calls || []) out.toolCall({ id: call.id || call.name, name: call.name, arguments: call.args });
    const usage = message.usage_metadata;
    if (usage) {
      seen.usage.inputTokens += usage.input_tokens || 0;
      seen.usage.outputTokens += usage.output_tokens || 0;
    }
    return;
  }
  if (messageType(message) === "tool") {
    out.toolResult({ callId: message.tool_call_id, name: message.name || "tool", output: toolOutput(message.content) });
  }
}

function updateMessages(update) {
  if (!update || typeof update !== "object") return [];
  const messages = update.messages;
  if (Array.isArray(messages)) return messages;
  return messages ? [messages] : [];
}

function messageType(message) {
  if (!message) return "";
  if (typeof message._getType === "function") return message._getType();
  return message.type || "";
}

function isAI(message) {
  return messageType(message) === "ai";
}

// toolOutput parses JSON tool output back to a value, else keeps the text.
function toolOutput(content) {
  if (typeof content !== "string") return content ?? null;
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

// ranHere maps a thread to the id of the newest transcript message of the
// last turn this process completed on it.
const ranHere = new Map();

function lastHistoryId(history) {
  return history.length > 0 ? String(history[history.length - 1].id) : "";
}

// turnMessages is the messages input of a turn: the user's message, after
// the session transcript when the thread's checkpoint is missing or stale
// (another worker or replica served the turns since, or this one restarted).
// The transcript then replaces the checkpoint's messages.
async function turnMessages(graph, config, turn) {
  const current = new HumanMessage(turn.input);
  const thread = config.configurable.thread_id;
  const saved = await graph.getState(config);
  const values = (saved && saved.values) || {};
  const hasMessages = Array.isArray(values.messages) && values.messages.length > 0;
  if (hasMessages && ranHere.has(thread) && followsOwnTurn(turn.history, ranHere.get(thread))) return [current];
  if (!hasMessages && turn.history.length === 0) return [current];
  return [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...historyMessages(turn.history), current];
}

// followsOwnTurn reports whether the transcript's newest two messages are
// this process's previous turn: the message before them is the one that
// was newest then.
function followsOwnTurn(history, previousId) {
  const n = history.length;
  if (n < 2) return false;
  if (previousId === "") return n === 2;
  return n >= 3 && String(history[n - 3].id) === previousId;
}

// historyMessages turns the session transcript into LangChain messages.
function historyMessages(history) {
  const messages = [];
  for (const entry of history) {
    const text = typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content);
    if (entry.role === "user") messages.push(new HumanMessage(text));
    else if (entry.role === "assistant") messages.push(new AIMessage(text));
  }
  return messages;
}

function defaultApproval(value) {
  const human = humanInterrupt(value);
  if (human) {
    const config = human.config || {};
    const answers = [config.allow_edit && "edit", config.allow_respond && "respond"].filter(Boolean);
    const args = human.action_request.args;
    return {
      action: String(human.action_request.action || "continue"),
      message: typeof human.description === "string" ? human.description : undefined,
      arguments: args && typeof args === "object" && !Array.isArray(args) ? args : undefined,
      answers,
    };
  }
  if (typeof value === "string") return { action: "approve", message: value };
  const v = value && typeof value === "object" ? value : {};
  const args = v.arguments || v.args;
  return {
    action: typeof v.action === "string" && v.action ? v.action : "continue",
    message: typeof v.message === "string" ? v.message : undefined,
    arguments: args && typeof args === "object" && !Array.isArray(args) ? args : undefined,
  };
}

// humanInterrupt is the agent-inbox HumanInterrupt an interrupt value holds
// ({action_request, config, description}, or a list of one), else null.
function humanInterrupt(value) {
  const v = Array.isArray(value) && value.length === 1 ? value[0] : value;
  return v && typeof v === "object" && v.action_request && typeof v.action_request === "object" ? v : null;
}

// defaultResume is the Command resume value of an answer: the decision, or
// for a HumanInterrupt the HumanResponse list its graph reads.
function defaultResume(decision, value, answer = { decision }) {
  const human = humanInterrupt(value);
  if (!human) return decision;
  switch (answer.decision) {
    case "approve":
      return [{ type: "accept", args: null }];
    case "edit":
      return [{ type: "edit", args: { action: human.action_request.action, args: answer.arguments } }];
    case "respond":
      return [{ type: "response", args: typeof answer.result === "string" ? answer.result : JSON.stringify(answer.result) }];
  }
  return [{ type: "ignore", args: answer.message ?? null }];
}

// changedKeys returns the keys whose value differs from the session's.
function changedKeys(keys, before, after) {
  const delta = {};
  for (const key of keys) {
    if (!(key in after) || after[key] === undefined) continue;
    if (JSON.stringify(after[key]) !== JSON.stringify(before[key])) delta[key] = after[key];
  }
  return delta;
}

// worthCheckpoint reports whether a checkpoint is a resume point worth a
// line: a node of the graph completed since the last one (before any, the
// input alone is as good) and work is left (the last one ends the turn).
function worthCheckpoint(chunk, seen) {
  const worth = !seen.refused && seen.progressed && Array.isArray(chunk.next) && chunk.next.length > 0;
  if (worth) seen.progressed = false;
  return worth;
}

// sendCheckpoint writes the graph's checkpoint config names as a checkpoint
// line: {langgraph: {type, checkpoint, metadata}}, the checkpoint and its
// metadata as the checkpointer's serializer writes them, in base64.
async function sendCheckpoint(graph, config, out) {
  const saver = graph.checkpointer;
  const tuple = config && (await saver.getTuple(config));
  if (!tuple) return;
  const [type, checkpoint] = await saver.serde.dumpsTyped(tuple.checkpoint);
  const [, metadata] = await saver.serde.dumpsTyped(tuple.metadata || {});
  const value = { langgraph: { type, checkpoint: base64(checkpoint), metadata: base64(metadata) } };
  if (Buffer.byteLength(value.langgraph.checkpoint) > checkpointMaxBytes) {
    log("langgraph adapter: the graph's checkpoint is too large to send; a rerun resumes from the one before");
    return;
  }
  out.checkpoint(value);
}

// restoreCheckpoint puts a checkpoint sendCheckpoint wrote into the graph's
// checkpointer as the thread's newest; it reports whether there was one.
async function restoreCheckpoint(graph, config, value) {
  const saved = value && value.langgraph;
  if (!saved || typeof saved.checkpoint !== "string") return false;
  const saver = graph.checkpointer;
  const type = typeof saved.type === "string" ? saved.type : "json";
  const checkpoint = await saver.serde.loadsTyped(type, Buffer.from(saved.checkpoint, "base64"));
  const metadata = typeof saved.metadata === "string" ? await saver.serde.loadsTyped(type, Buffer.from(saved.metadata, "base64")) : {};
  await saver.put({ configurable: { thread_id: config.configurable.thread_id, checkpoint_ns: "" } }, checkpoint, metadata, {});
  return true;
}

function base64(bytes) {
  return typeof bytes === "string" ? Buffer.from(bytes).toString("base64") : Buffer.from(bytes).toString("base64");
}
