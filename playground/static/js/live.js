// live.js: the Live transport, WS /live. One socket per session; a browser
// cannot set headers on a WebSocket, so the token is offered as the
// subprotocol "bearer.<token>" next to "harnest.live". Approvals and client
// tools of a live response are answered on the socket.

import { currentToken } from "./api.js";

/** closeReasons explains the socket's close codes. */
const closeReasons = {
  1000: "The live session was closed.",
  1001: "The server is shutting down.",
  1008: "The server refused the live session (unknown session or bad frame).",
  1009: "The message is too large for the live session.",
  1011: "The server could not reach its store.",
  4401: "The live connection needs a valid token: enter it in the Token field.",
  4403: "The server refused this page's origin for the live connection.",
};

/** LiveClient is the page's /live socket. */
export class LiveClient {
  constructor() {
    this.ws = null;
    this.sessionId = "";
    this.token = "";
    this.run = null;
    this.requests = 0;
  }

  /** connect opens (or reuses) a socket for the session. */
  connect(sessionId) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.sessionId === sessionId &&
        this.token === currentToken()) {
      return Promise.resolve();
    }
    this.close();
    const token = currentToken();
    const protocols = token ? ["harnest.live", "bearer." + token] : ["harnest.live"];
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(scheme + "//" + window.location.host + "/live", protocols);
    this.ws = ws;
    this.sessionId = sessionId;
    this.token = token;
    return new Promise((resolve, reject) => {
      let connected = false;
      ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "connect", sessionId })));
      ws.addEventListener("message", (e) => {
        let frame;
        try {
          frame = JSON.parse(e.data);
        } catch (err) {
          return;
        }
        if (frame.type === "session.connected") {
          connected = true;
          resolve();
          return;
        }
        this.onFrame(frame);
      });
      ws.addEventListener("close", (e) => {
        if (this.ws === ws) this.ws = null;
        const reason = closeReasons[e.code] || "The live connection closed (code " + e.code + ").";
        if (!connected) reject(new Error(reason));
        if (this.run && !this.run.done && e.code !== 1000) this.run.fail(reason);
      });
    });
  }

  onFrame(frame) {
    const run = this.run;
    if (!run || run.done) return;
    if (frame.type === "error" && !frame.responseId) {
      run.fail(frame.error || "The live session reported an error.");
      return;
    }
    run.handle(frame);
  }

  /** start sends response.create for the run. */
  async start(run, sessionId, input) {
    await this.connect(sessionId);
    this.run = run;
    this.requests++;
    this.ws.send(JSON.stringify({ type: "response.create", input, requestId: "page-" + this.requests }));
  }

  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      throw new Error("The live connection is closed; send the message again to reconnect.");
    }
    this.ws.send(JSON.stringify(frame));
  }

  async answerApproval(run, info, decision) {
    run.status = "in_progress";
    this.send({ type: "approval.decision", responseId: run.responseId, approvalId: info.id, ...decision });
  }

  async answerClientTool(run, info, output) {
    run.status = "in_progress";
    this.send({ type: "client_tool.result", requestId: info.id, output });
  }

  /** cancel sends response.cancel for the running response. */
  cancel(run) {
    this.send({ type: "response.cancel", responseId: run.responseId });
  }

  close() {
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try {
        ws.close(1000);
      } catch (e) {
        // already closed
      }
    }
  }
}
