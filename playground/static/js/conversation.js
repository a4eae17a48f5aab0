// conversation.js: the Conversation log and the composer. It sends each
// message over the transport chosen for it (JSON, SSE, Live or AG-UI; the
// same session continues across them), shows the Cancel button while a
// response runs, steers it with the next message (POST
// /responses/{id}/steer), restores transcripts and, after a reload, finds
// and follows the session's running response with the session's own
// stream (GET /sessions/{id}/events).

import { get, request, stream, path } from "./api.js";
import { MessageView } from "./messages.js";
import { Run } from "./run.js";
import { startHTTP, httpAnswers, sseAnswers } from "./http.js";
import { LiveClient } from "./live.js";
import { aguiTransport } from "./agui.js";

/** Conversation is the log and composer of the page. */
export class Conversation {
  /** ui: log, form, message, transport, background, send, cancel, status. */
  constructor(ui, sessions, uploads) {
    this.ui = ui;
    this.sessions = sessions;
    this.uploads = uploads;
    this.live = new LiveClient();
    this.run = null;
    this.preparing = false;
    ui.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
    ui.message.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.send();
      }
    });
    ui.cancel.addEventListener("click", () => this.cancel());
    ui.busy.addEventListener("change", () => this.showSendLabel());
  }

  say(text) {
    this.ui.status.textContent = text;
  }

  /** clear empties the log (a new or no session). */
  clear() {
    this.ui.log.replaceChildren();
    this.live.close();
  }

  /** restore shows a session's transcript. */
  restore(messages) {
    this.clear();
    const frag = document.createDocumentFragment();
    for (const m of messages) {
      const role = m.role === "user" ? "user" : "assistant";
      const view = new MessageView(frag, role, m.role === role ? "" : m.role);
      if (typeof m.content === "string") {
        view.setText(m.content);
      } else if (Array.isArray(m.content)) {
        const text = [];
        for (const part of m.content) {
          if (part.type === "text" || part.type === "output_text") text.push(part.text || "");
          else view.attach(part.type, part.mediaType, "");
        }
        view.setText(text.join("\n"));
      }
      if (m.metadata && m.metadata.responseId) view.article.dataset.responseId = m.metadata.responseId;
    }
    this.ui.log.append(frag);
    this.ui.log.scrollTop = this.ui.log.scrollHeight;
  }

  setRunning(run) {
    this.run = run;
    const running = Boolean(run);
    this.ui.cancel.hidden = !running;
    this.showSendLabel();
    if (!running) this.ui.message.focus();
  }

  /**
   * showSendLabel names what Send does: while a response runs, what the
   * "While busy" choice does with the next message (steer it, queue the
   * message behind it, interrupt it or roll it back).
   */
  showSendLabel() {
    const labels = { steer: "Steer", enqueue: "Queue", interrupt: "Interrupt", rollback: "Roll back" };
    this.ui.send.textContent = this.run ? labels[this.ui.busy.value] || "Steer" : "Send";
  }

  /** send sends the composer's message over the chosen transport. */
  async send() {
    if (this.ui.typed && this.ui.typed.fields.length && !this.run) {
      await this.sendTyped();
      return;
    }
    const text = this.ui.message.value;
    const onBusy = this.run ? this.ui.busy.value : "";
    if (this.run && text.trim() && onBusy === "steer") {
      await this.steer(this.run, text);
      return;
    }
    const transportName = this.ui.transport.value;
    if (onBusy && transportName !== "JSON" && transportName !== "SSE") {
      this.say("Queue, interrupt and roll back go over JSON or SSE; choose one of them, or steer.");
      return;
    }
    if ((this.run && !onBusy) || this.preparing || (!text.trim() && !this.uploads.pending())) return;
    this.say("");
    let sessionId;
    let attachments = [];
    // One message at a time, also while its session is being created.
    this.preparing = true;
    try {
      sessionId = await this.sessions.ensure();
      if (this.uploads.pending()) {
        if (transportName === "AG-UI") throw new Error("AG-UI runs take text only; send files over JSON, SSE or Live.");
        attachments = await this.uploads.uploadAll(sessionId);
      }
    } catch (e) {
      this.say(e.message);
      return;
    } finally {
      this.preparing = false;
    }
    this.ui.message.value = "";
    const user = new MessageView(this.ui.log, "user", transportName);
    user.setText(text);
    for (const a of attachments) user.attach(a.name, a.mediaType, a.url);
    const input = attachments.length ? [{ type: "text", text }, ...attachments.map((a) => a.part)] : text;
    if (attachments.length && !text.trim()) input.shift();
    const view = new MessageView(this.ui.log, "assistant", onBusy ? `${transportName} (${onBusy})` : transportName);
    await this.start(view, transportName, sessionId, input, onBusy);
  }

  /**
   * sendTyped sends a typed agent's input: the JSON object typed in the
   * message box, else the one the form makes (typedform.js). AG-UI
   * carries it as the user message's text.
   */
  async sendTyped() {
    const text = this.ui.message.value.trim();
    let input;
    try {
      input = text ? JSON.parse(text) : this.ui.typed.value();
    } catch (e) {
      this.say(e instanceof SyntaxError ? "The message is not a JSON object; clear it to send the form." : e.message);
      return;
    }
    if (this.preparing) return;
    const transportName = this.ui.transport.value;
    this.say("");
    let sessionId;
    this.preparing = true;
    try {
      sessionId = await this.sessions.ensure();
    } catch (e) {
      this.say(e.message);
      return;
    } finally {
      this.preparing = false;
    }
    this.ui.message.value = "";
    const json = JSON.stringify(input);
    new MessageView(this.ui.log, "user", transportName).setText(json);
    const view = new MessageView(this.ui.log, "assistant", transportName);
    await this.start(view, transportName, sessionId, transportName === "AG-UI" ? json : input, "");
  }

  /**
   * start runs one response and follows it to its end. onBusy (JSON and
   * SSE) says what the message does if the session is busy: a queued
   * response is followed like any other and answers when its turn comes.
   */
  async start(view, transportName, sessionId, input, onBusy) {
    const background = this.ui.background.checked && (transportName === "JSON" || transportName === "SSE");
    const transports = { JSON: httpAnswers, SSE: sseAnswers, Live: this.live, "AG-UI": aguiTransport };
    const run = new Run(view, transportName, sessionId, transports[transportName]);
    run.onStateDelta = () => this.sessions.loadState().catch(() => {});
    run.onEnd = () => {
      if (this.run === run) this.setRunning(null);
      this.sessions.setURL(this.sessions.current);
    };
    this.setRunning(run);
    try {
      if (transportName === "Live") {
        await this.live.start(run, sessionId, input);
      } else if (transportName === "AG-UI") {
        await aguiTransport.start(run, sessionId, input);
      } else {
        const body = { input, sessionId };
        if (background) body.background = true;
        if (onBusy) body.onBusy = onBusy;
        const started = startHTTP(run, body, transportName === "SSE");
        if (background) this.rememberWhenKnown(run);
        await started;
      }
    } catch (e) {
      if (e.name === "AbortError") run.finish({ status: "cancelled" });
      else run.fail(e.message);
    }
    if (run.status === "requires_action" && this.run === run) this.setRunning(null);
  }

  // rememberWhenKnown puts a background response's ID in the URL (a
  // reload finds it with the session's stream, which needs no ID).
  rememberWhenKnown(run) {
    const timer = setInterval(() => {
      if (run.done) {
        clearInterval(timer);
        return;
      }
      if (!run.responseId) return;
      clearInterval(timer);
      const url = new URL(window.location.href);
      url.searchParams.set("response", run.responseId);
      window.history.replaceState(null, "", url.pathname + url.search);
    }, 20);
  }

  /**
   * steer hands a message to the running response, wherever it runs. The
   * message shows in the log when the turn takes it (response.steered).
   */
  async steer(run, text) {
    if (!run.responseId || !run.sessionId) {
      this.say("The response has no ID yet; try again in a moment.");
      return;
    }
    this.ui.message.value = "";
    try {
      await request("POST", path(["responses", run.responseId, "steer"], { sessionId: run.sessionId }), { input: text });
      this.say("Steer sent: the agent takes it at its next step.");
    } catch (e) {
      this.ui.message.value = text;
      this.say(e.message);
    }
  }

  /**
   * followSession finds the session's running response after a reload (or
   * in a second tab) and follows it from its first event with the
   * session's own stream, until it ends or waits for an answer.
   */
  async followSession(sessionId) {
    let session;
    try {
      session = await get(path(["sessions", sessionId]));
    } catch (e) {
      this.say(e.message);
      return;
    }
    if ((session.status !== "running" && session.status !== "waiting") || this.run) return;
    const view = new MessageView(this.ui.log, "assistant", "SSE (resumed)");
    const run = new Run(view, "SSE", sessionId, sseAnswers);
    view.setLabel("SSE (resumed)");
    view.note("Found the session's running response " + session.activeResponseId + " after a reload.", "activity");
    run.onEnd = () => {
      if (this.run === run) this.setRunning(null);
      this.sessions.setURL(this.sessions.current);
    };
    this.setRunning(run);
    const controller = new AbortController();
    run.abort = controller;
    let stopped = false;
    try {
      await stream(path(["sessions", sessionId, "events"]), undefined, (f) => {
        const ev = f.data;
        if (stopped || !ev || typeof ev !== "object") return;
        if (run.responseId && ev.responseId && ev.responseId !== run.responseId) {
          stopped = true; // the next response of the session: not this view's
          controller.abort();
          return;
        }
        run.handle(ev);
        if (run.done || run.status === "requires_action") {
          stopped = true;
          controller.abort();
        }
      }, { signal: controller.signal });
    } catch (e) {
      if (!stopped && e.name !== "AbortError") run.fail(e.message);
    }
    if (run.status === "requires_action" && this.run === run) this.setRunning(null);
  }

  /** cancel cancels the running response wherever it runs. */
  async cancel() {
    const run = this.run;
    if (!run) return;
    this.ui.cancel.disabled = true;
    try {
      if (run.responseId && run.sessionId) {
        const env = await request("POST", path(["responses", run.responseId, "cancel"], { sessionId: run.sessionId }));
        if (run.transportName === "JSON" || run.transportName === "AG-UI") {
          if (run.abort) run.abort.abort();
          run.finish(env);
        }
      } else if (run.abort) {
        run.abort.abort();
      }
    } catch (e) {
      this.say(e.message);
    } finally {
      this.ui.cancel.disabled = false;
    }
  }
}
