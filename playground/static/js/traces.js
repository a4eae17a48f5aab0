// traces.js: the Traces view, for debugging. It lists the last 50
// responses of the current user, built from the public API only (sessions,
// their transcripts' metadata.responseId, the receipts and event logs),
// together with what this page saw of the responses it ran itself (the
// transport, timings, events). It is a view, not a second store.

import { get, stream, path } from "./api.js";
import { el } from "./messages.js";

const maxTraces = 50;

/** pageTraces are the responses this page ran, newest last. */
const pageTraces = [];

/** recordTrace starts the page's record of a run. */
export function recordTrace(run) {
  const trace = {
    responseId: "",
    sessionId: run.sessionId,
    transport: run.transportName,
    status: run.status,
    startedAt: new Date(),
    firstEventMs: null,
    durationMs: null,
    events: run.seen,
    update(r) {
      this.responseId = r.responseId;
      this.sessionId = r.sessionId;
      this.status = r.status;
      if (r.firstEventAt) this.firstEventMs = Math.round(r.firstEventAt - r.startedAt);
      if (r.endedAt) this.durationMs = Math.round(r.endedAt - r.startedAt);
    },
  };
  pageTraces.push(trace);
  if (pageTraces.length > maxTraces) pageTraces.shift();
  return trace;
}

/** collectTraces gathers the user's last responses, newest first. */
export async function collectTraces() {
  const byID = new Map();
  for (const t of pageTraces) if (t.responseId) byID.set(t.responseId, t);
  const found = [];
  let cursor;
  for (let pages = 0; pages < 5 && found.length < maxTraces; pages++) {
    const page = await get(path(["sessions"], { limit: 100, cursor }));
    for (const s of page.sessions) {
      const messages = await lastMessages(s.id);
      for (const m of messages) {
        const id = m.metadata && m.metadata.responseId;
        if (m.role === "assistant" && id) found.push({ responseId: id, sessionId: s.id, at: m.createdAt });
      }
    }
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  for (const t of pageTraces) {
    if (t.responseId && !found.some((f) => f.responseId === t.responseId)) {
      found.push({ responseId: t.responseId, sessionId: t.sessionId, at: t.startedAt.toISOString() });
    }
  }
  found.sort((a, b) => String(b.at).localeCompare(String(a.at)));
  const newest = found.slice(0, maxTraces);
  return Promise.all(newest.map(async (f) => {
    const mine = byID.get(f.responseId);
    let status = mine ? mine.status : "";
    try {
      const receipt = await get(path(["responses", f.responseId], { sessionId: f.sessionId }));
      status = receipt.status;
    } catch (e) {
      status = status || "receipt gone (" + e.message + ")";
    }
    return { ...f, status, mine };
  }));
}

// lastMessages reads the last page of a session's transcript (at most 100
// messages are enough for the newest 50 responses).
async function lastMessages(sessionId) {
  let cursor;
  let last = [];
  for (let pages = 0; pages < 20; pages++) {
    const page = await get(path(["sessions", sessionId, "messages"], { limit: 100, cursor }));
    last = page.messages;
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return last;
}

/** eventLog reads a response's whole event log (bounded in time). */
export async function eventLog(responseId, sessionId) {
  const events = [];
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    await stream(path(["responses", responseId, "events"], { sessionId }), undefined, (f) => {
      events.push(f.data);
      if (f.data && f.data.type === "response.completed" && f.data.status !== "requires_action") controller.abort();
    }, { signal: controller.signal });
  } catch (e) {
    if (e.name !== "AbortError") throw e;
  } finally {
    clearTimeout(timer);
  }
  return events;
}

/** TracesView renders the list into its section. */
export class TracesView {
  constructor(list, refreshButton, status) {
    this.list = list;
    this.status = status;
    refreshButton.addEventListener("click", () => this.refresh());
  }

  async refresh() {
    this.status.textContent = "Loading traces…";
    let traces;
    try {
      traces = await collectTraces();
    } catch (e) {
      this.status.textContent = e.message;
      return;
    }
    this.status.textContent = traces.length + " responses (newest first).";
    this.list.replaceChildren(...traces.map((t) => this.item(t)));
  }

  item(t) {
    const d = el("details", "trace");
    const s = el("summary");
    const parts = [t.responseId, t.status, t.mine ? t.mine.transport : "other client"];
    if (t.mine && t.mine.durationMs !== null) parts.push(t.mine.durationMs + " ms");
    if (t.mine && t.mine.firstEventMs !== null) parts.push("first event " + t.mine.firstEventMs + " ms");
    s.textContent = parts.join(" · ");
    d.append(s);
    d.append(el("p", "trace-meta", "Session " + t.sessionId + " · " + t.at));
    const pre = el("pre", "trace-events");
    d.append(pre);
    d.addEventListener("toggle", async () => {
      if (!d.open || pre.dataset.loaded) return;
      pre.dataset.loaded = "1";
      pre.textContent = "Loading events…";
      try {
        const events = await eventLog(t.responseId, t.sessionId);
        const seen = t.mine ? t.mine.events : [];
        let text = events.map((e) => JSON.stringify(e)).join("\n");
        if (seen.length && t.mine.transport === "AG-UI") {
          text += "\n\nAG-UI events the page saw:\n" + seen.map((e) => JSON.stringify(e)).join("\n");
        }
        pre.textContent = text || "No events are kept for this response.";
      } catch (e) {
        pre.textContent = e.message;
      }
    });
    return d;
  }
}
