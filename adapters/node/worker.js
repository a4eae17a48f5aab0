// The protocol core: a worker of docs/worker-protocol.md around one function.
//
//   import { serve } from "@harnest/adapters/worker";
//   serve(async (turn, out) => {
//     out.text("You said: " + turn.input);
//   });
//
// serve reads the server's JSON lines on stdin, runs the handler once per
// `turn` (one turn at a time) and writes the handler's output as protocol
// lines on stdout. The turn ends with `done` when the handler resolves, or
// with `error` when it throws (the error's message goes to stderr and to the
// `error` line, which the server only logs). Logs must go to stderr: stdout
// carries protocol lines only.
//
// Resuming: `turn.attempt` is 1, or more when the server runs the turn again
// after its replica was lost; `turn.checkpoint` is then the value of the last
// `out.checkpoint(value)` of the lost attempt, if it sent one. A handler that
// resumes continues from it and writes only what comes after it (what it
// wrote before the checkpoint is already the turn's).
//
// After a `cancel` the signal `out.signal` is aborted, pending requests are
// rejected with a CancelledError, and every further output is dropped. The
// turn's `done` is sent when the handler settles, or after a grace period so
// the server's 2 s deadline holds even when the handler ignores the signal.
//
// A `steer` line (a message the user handed to the running turn) waits in the
// turn until the handler takes it: `out.takeSteers()` returns the steers that
// arrived so far ({steerId, input, content}) and forgets them;
// `out.onSteer(fn)` calls fn when one arrives. The framework adapters take
// them when their framework's run reaches a boundary and run it again with
// them as new user messages.

import readline from "node:readline";

/** How long a cancelled handler gets to settle before `done` is sent anyway. */
const cancelGraceMs = 1500;

/** The largest checkpoint value the server takes, as JSON (docs/worker-protocol.md). */
export const checkpointMaxBytes = 1 << 20;

/** CancelledError rejects requests pending when the server cancels the turn. */
export class CancelledError extends Error {
  constructor(message = "the turn was cancelled") {
    super(message);
    this.name = "CancelledError";
  }
}

/** log writes one line to stderr, which the server copies into its log. */
export function log(text) {
  process.stderr.write(String(text).replace(/\n/g, " ") + "\n");
}

function writeLine(message) {
  // JSON.stringify never writes a raw newline, so this is exactly one line.
  process.stdout.write(JSON.stringify(message) + "\n");
}

/**
 * serve runs handler(turn, out) for every turn the server sends, one at a
 * time, until stdin ends. It returns a promise that resolves then.
 * Options: {input, write} replace stdin and the line writer (for tests).
 */
export function serve(handler, options = {}) {
  const write = options.write || writeLine;
  const turns = []; // turn messages waiting for the current one to end
  const early = new Map(); // turn id -> steer lines that came before its run started
  let current = null; // the TurnRun in progress
  let ended = false;
  let wake = null;

  const lines = readline.createInterface({ input: options.input || process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      log("harnest worker: ignoring a line that is not JSON");
      return;
    }
    if (message === null || typeof message !== "object") return;
    if (message.type === "turn") {
      turns.push(message);
      if (wake) wake();
      return;
    }
    // Answers and cancels for the turn in progress; late ones are ignored.
    if (current && message.id === current.id) {
      current.receive(message);
    } else if (message.type === "steer" && turns.some((turn) => turn.id === message.id)) {
      if (!early.has(message.id)) early.set(message.id, []);
      early.get(message.id).push(message);
    }
  });
  lines.on("close", () => {
    ended = true;
    if (current) current.cancel(new CancelledError("stdin ended"));
    if (wake) wake();
  });

  return (async () => {
    for (;;) {
      if (turns.length === 0) {
        if (ended) return;
        await new Promise((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      const next = turns.shift();
      current = new TurnRun(next, write);
      for (const steer of early.get(next.id) || []) current.receive(steer);
      early.delete(next.id);
      await current.run(handler);
      current = null;
    }
  })();
}

/** TurnRun is one turn in progress: its output object and pending requests. */
class TurnRun {
  constructor(message, write) {
    this.id = message.id;
    this.message = normalizeTurn(message);
    this.write = write;
    this.closed = false; // true after cancel or end: output is dropped
    this.requests = new Map(); // requestId -> {resolve, reject, answerType}
    this.requestCount = 0;
    this.controller = new AbortController();
    this.cancelled = null; // resolves when a cancel arrives
    this.cancelArrived = new Promise((resolve) => (this.cancelled = resolve));
    this.steers = []; // steer lines not taken yet
    this.steerListeners = [];
  }

  send(type, fields) {
    if (this.closed) return;
    this.write({ type, id: this.id, ...fields });
  }

  receive(message) {
    if (message.type === "cancel") {
      this.cancel(new CancelledError());
      return;
    }
    if (message.type === "steer") {
      if (this.closed || typeof message.input !== "string") return;
      const steer = { steerId: String(message.steerId ?? ""), input: message.input, content: Array.isArray(message.content) ? message.content : [] };
      this.steers.push(steer);
      for (const listener of this.steerListeners) listener(steer);
      return;
    }
    const pending = this.requests.get(message.requestId);
    if (!pending || pending.answerType !== message.type) return;
    this.requests.delete(message.requestId);
    pending.resolve(message);
  }

  cancel(reason) {
    if (this.closed) return;
    this.closed = true;
    this.controller.abort(reason);
    for (const pending of this.requests.values()) pending.reject(reason);
    this.requests.clear();
    this.cancelled();
  }

  request(type, answerType, fields) {
    if (this.closed) return Promise.reject(new CancelledError());
    this.requestCount += 1;
    const requestId = `req_${this.requestCount}`;
    const answer = new Promise((resolve, reject) => {
      this.requests.set(requestId, { resolve, reject, answerType });
    });
    this.send(type, { requestId, ...fields });
    return answer;
  }

  async run(handler) {
    const out = newOutput(this);
    const work = Promise.resolve()
      .then(() => handler(this.message, out))
      .then(
        () => ({ ok: true }),
        (err) => ({ ok: false, err }),
      );
    const first = await Promise.race([work, this.cancelArrived.then(() => null)]);
    if (first === null) {
      // Cancelled: give the handler a moment, then end the turn regardless.
      let timer;
      const grace = new Promise((resolve) => (timer = setTimeout(resolve, cancelGraceMs)));
      await Promise.race([work, grace]);
      clearTimeout(timer);
      this.write({ type: "done", id: this.id });
      return;
    }
    const wasClosed = this.closed;
    this.closed = true;
    if (wasClosed) return;
    if (first.ok) {
      this.write({ type: "done", id: this.id });
      return;
    }
    const err = first.err;
    log(`harnest worker: turn ${this.id} failed: ${err && err.stack ? err.stack : err}`);
    this.write({ type: "error", id: this.id, message: String(err && err.message ? err.message : err) });
  }
}

// normalizeTurn fills the fields a handler can rely on.
function normalizeTurn(message) {
  return {
    ...message,
    input: typeof message.input === "string" ? message.input : "",
    content: Array.isArray(message.content) ? message.content : [],
    state: isObject(message.state) ? message.state : {},
    metadata: isObject(message.metadata) ? message.metadata : {},
    history: Array.isArray(message.history) ? message.history : [],
    attempt: Number.isInteger(message.attempt) && message.attempt >= 1 ? message.attempt : 1,
    checkpoint: message.checkpoint === undefined ? null : message.checkpoint,
  };
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// newOutput builds the `out` object a handler writes its turn through.
function newOutput(run) {
  return {
    /** signal is aborted when the server cancels the turn. */
    signal: run.controller.signal,
    /** takeSteers returns the steers that arrived since the last call ({steerId, input, content}). */
    takeSteers: () => run.steers.splice(0),
    /** onSteer calls fn(steer) whenever a steer arrives (it stays to be taken). */
    onSteer: (fn) => run.steerListeners.push(fn),
    text: (delta) => run.send("text", { delta: String(delta ?? "") }),
    thinking: (delta) => run.send("thinking", { delta: String(delta ?? "") }),
    activity: ({ activity, target, code }) => run.send("activity", compact({ activity, target, code })),
    metadata: ({ framework, model, provider, usage, finishReason, raw }) =>
      run.send("metadata", compact({ framework, model, provider, usage: usageLine(usage), finishReason, raw })),
    toolCall: ({ id, name, arguments: args }) =>
      run.send("tool_call", { callId: String(id), name: String(name), arguments: isObject(args) ? args : {} }),
    toolResult: ({ callId, name, output }) =>
      run.send("tool_result", { callId: String(callId), name: String(name), output: output === undefined ? null : output }),
    state: (delta) => {
      if (isObject(delta) && Object.keys(delta).length > 0) run.send("state", { delta });
    },
    result: (value) => run.send("result", { value: value === undefined ? null : value }),
    /**
     * checkpoint marks a resume point: value (any JSON but null) is what the
     * handler needs to continue from here, after the output written so far.
     * A value over checkpointMaxBytes is not sent (logged; false returned):
     * the previous checkpoint stays the resume point.
     */
    checkpoint: (value) => {
      if (value === undefined || value === null) throw new TypeError("checkpoint needs a value (any JSON but null)");
      const size = Buffer.byteLength(JSON.stringify(value));
      if (size > checkpointMaxBytes) {
        log(`harnest worker: a checkpoint of ${size} bytes is over ${checkpointMaxBytes}; not sent`);
        return false;
      }
      run.send("checkpoint", { value });
      return true;
    },
    /** One chunk of an artifact (docs/worker-protocol.md); turn.message carries the A2A message's IDs. */
    artifact: ({ artifactId, name, description, parts, append, lastChunk, metadata }) =>
      run.send("artifact", compact({ artifactId: String(artifactId), name, description, parts: Array.isArray(parts) ? parts : [], append, lastChunk, metadata })),
    /**
     * Asks a human to approve action; resolves to the decision: "approve", "deny", "expired", or, when
     * answers offered them ("edit", "respond"), "edit" or "respond" (approvalAnswer gives what came with them).
     */
    approval: async (request) => (await approvalAnswer(run, request)).decision,
    /**
     * approval, resolving to the whole answer: {decision, message?} for a denial, {decision: "edit", arguments}
     * (already checked against argumentsSchema), {decision: "respond", result} (the result in the action's place).
     */
    approvalAnswer: (request) => approvalAnswer(run, request),
    clientTool: async ({ name, arguments: args, callId }) => {
      const answer = await run.request("client_tool_request", "client_tool", compact({ name: String(name), arguments: isObject(args) ? args : {}, callId }));
      if (typeof answer.error === "string") return { error: answer.error };
      return { output: answer.output === undefined ? null : answer.output };
    },
  };
}

// approvalAnswer sends an approval_request (docs/worker-protocol.md; answers may offer "edit" and
// "respond", argumentsSchema is what edited arguments must match) and reads its answer.
async function approvalAnswer(run, { action, message, arguments: args, answers, argumentsSchema }) {
  const offered = Array.isArray(answers) ? answers.filter((a) => a === "edit" || a === "respond") : [];
  const answer = await run.request("approval_request", "approval", compact({
    action: String(action), message, arguments: isObject(args) ? args : undefined,
    answers: offered.length > 0 ? offered : undefined, argumentsSchema: isObject(argumentsSchema) ? argumentsSchema : undefined,
  }));
  switch (answer.decision) {
    case "approve":
    case "expired":
      return { decision: answer.decision };
    case "edit":
      if (offered.includes("edit") && isObject(answer.arguments)) return { decision: "edit", arguments: answer.arguments };
      break;
    case "respond":
      if (offered.includes("respond") && answer.result !== undefined) return { decision: "respond", result: answer.result };
      break;
  }
  return typeof answer.message === "string" ? { decision: "deny", message: answer.message } : { decision: "deny" };
}

// usageLine keeps the usage fields as non-negative integers, or drops usage.
function usageLine(usage) {
  if (!isObject(usage)) return undefined;
  const count = (n) => (Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
  const inputTokens = count(usage.inputTokens);
  const outputTokens = count(usage.outputTokens);
  const totalTokens = count(usage.totalTokens) || inputTokens + outputTokens;
  return { inputTokens, outputTokens, totalTokens };
}

// compact drops undefined and null fields, so optional ones are left out.
function compact(fields) {
  const out = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}
