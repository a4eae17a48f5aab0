// run.js: one response as the page follows it, whatever the transport.
// It turns the portable events (response.text.delta, approval.requested,
// response.completed …) and final envelopes into what the message view
// shows, and records what it saw for the Traces view.

import { recordTrace } from "./traces.js";
import { MessageView } from "./messages.js";

/** Run is one response shown in one assistant message. */
export class Run {
  /**
   * transport answers the run's waits: answerApproval(run, info, decision)
   * and answerClientTool(run, info, output), both returning promises.
   */
  constructor(view, transportName, sessionId, transport) {
    this.view = view;
    this.transportName = transportName;
    this.transport = transport;
    this.sessionId = sessionId;
    this.responseId = "";
    this.lastSequence = -1;
    this.status = "in_progress";
    this.done = false;
    this.startedAt = performance.now();
    this.firstEventAt = 0;
    this.endedAt = 0;
    this.seen = [];
    this.answered = new Set();
    this.onStateDelta = null;
    this.onEnd = null;
    view.setBusy(true);
    view.setLabel(transportName);
    this.trace = recordTrace(this);
  }

  /** handle takes one portable event (SSE, the event log, or /live). */
  handle(ev) {
    if (!ev || typeof ev !== "object") return;
    if (!this.firstEventAt) this.firstEventAt = performance.now();
    this.seen.push(ev);
    if (this.seen.length > 2000) this.seen.shift();
    if (typeof ev.sequence === "number" && ev.sequence > this.lastSequence) this.lastSequence = ev.sequence;
    if (ev.responseId && !this.responseId) this.responseId = ev.responseId;
    if (ev.sessionId && !this.sessionId) this.sessionId = ev.sessionId;
    const v = this.view;
    switch (ev.type) {
      case "response.text.delta":
        v.appendText(ev.delta || "");
        break;
      case "response.thinking.delta":
        v.appendThinking(ev.delta || "");
        break;
      case "response.tool_call":
        v.toolCall(ev.id, ev.name, ev.arguments);
        break;
      case "response.tool_result":
        v.toolResult(ev.callId, ev.name, ev.output);
        break;
      case "response.agent_activity":
        v.note("Activity: " + [ev.activity, ev.target, ev.code].filter(Boolean).join(" · "), "activity");
        break;
      case "response.agent_metadata":
        v.metadata(ev);
        break;
      case "response.decision_result":
        v.note("Decision result: " + JSON.stringify(ev.value), "activity");
        break;
      case "response.state_delta":
        if (this.onStateDelta) this.onStateDelta();
        break;
      case "approval.requested":
        this.askApproval(ev.approval);
        break;
      case "client_tool.requested":
        this.askClientTool(ev.clientTool);
        break;
      case "response.steered":
        this.steered(ev.steer);
        break;
      case "approval.resolved":
        v.note("Approval " + (ev.decision || (ev.resolution && ev.resolution.decision) || "resolved") +
          (ev.resolution && ev.resolution.edited ? " (arguments edited)" : ""), "activity");
        break;
      case "response.completed":
        this.finish(ev);
        break;
      case "error":
        this.fail(ev.error || "The response failed.");
        break;
      default:
        break;
    }
    this.trace.update(this);
  }

  /**
   * steered shows a message the turn took (steering) where it took it: the
   * answer so far stays in its message, the steer follows as a user
   * message, and the rest of the answer goes into a new assistant message,
   * as the transcript keeps them.
   */
  steered(info) {
    if (!info || this.answered.has(info.id)) return;
    this.answered.add(info.id);
    const log = this.view.log;
    this.view.setBusy(false);
    const user = new MessageView(log, "user", "steer");
    user.setText(info.input || "");
    this.view = new MessageView(log, "assistant", this.view.tag.textContent);
    this.view.setBusy(true);
  }

  /** askApproval shows an approval card once per approval ID. */
  askApproval(info) {
    if (!info || this.answered.has(info.id)) return;
    this.answered.add(info.id);
    this.status = "requires_action";
    this.view.approval(info, (decision) => this.transport.answerApproval(this, info, decision));
  }

  /** askClientTool shows a client-tool form once per request ID. */
  askClientTool(info) {
    if (!info || this.answered.has(info.id)) return;
    this.answered.add(info.id);
    this.status = "requires_action";
    this.view.clientTool(info, (output) => this.transport.answerClientTool(this, info, output));
  }

  /**
   * finish takes a response's envelope (response.completed or the JSON
   * answer). A requires_action envelope shows its wait; any other status
   * ends the run.
   */
  finish(env) {
    if (env.responseId || env.id) this.responseId = env.responseId || env.id;
    if (env.sessionId) this.sessionId = env.sessionId;
    this.status = env.status || "completed";
    if (this.status === "requires_action" && env.requiredAction) {
      const ra = env.requiredAction;
      if (ra.type === "human_approval") this.askApproval(ra);
      else if (ra.type === "client_tool") this.askClientTool(ra);
      this.footer();
      this.trace.update(this);
      return;
    }
    if (!this.view.text && env.outputText) this.view.setText(env.outputText);
    if (this.status === "cancelled") this.view.note("Cancelled" + (env.error ? " (" + env.error.code + ")" : ""), "cancelled");
    else if (this.status === "denied") this.view.note("Denied: the agent did not answer.", "cancelled");
    else if (this.status === "failed") this.view.error("The response failed" + (env.error ? " (" + env.error.code + ")." : "."));
    this.end();
  }

  /** renderEnvelope shows a whole JSON envelope (the JSON transport). */
  renderEnvelope(env) {
    for (const item of env.output || []) {
      if (item.type === "thinking") {
        this.view.setThinking((item.content || []).map((c) => c.text || "").join(""));
      } else if (item.type === "tool_call") {
        if (!this.view.activity.querySelector('[data-call-id="' + CSS.escape(item.id || "") + '"]')) {
          this.view.toolCall(item.id, item.name, item.arguments);
        }
      } else if (item.type === "tool_result") {
        this.view.toolResult(item.callId, item.name, item.output);
      } else if (item.type === "message") {
        this.view.setText((item.content || []).map((c) => c.text || "").join(""));
      }
    }
    this.finish(env);
  }

  /** fail ends the run with the API's detail sentence. */
  fail(detail) {
    if (this.done) return;
    this.status = "failed";
    this.view.error(detail);
    this.end();
  }

  end() {
    if (this.done) return;
    this.done = true;
    this.endedAt = performance.now();
    this.view.setBusy(false);
    this.footer();
    this.trace.update(this);
    if (this.onEnd) this.onEnd(this);
  }

  footer() {
    const ms = Math.round((this.endedAt || performance.now()) - this.startedAt);
    const parts = [this.status];
    if (this.responseId) parts.push(this.responseId);
    parts.push(ms + " ms");
    this.view.footer(parts.join(" · "));
  }
}
