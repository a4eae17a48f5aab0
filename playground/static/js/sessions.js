// sessions.js: the session picker (the user's sessions, a page at a time,
// filtered by ID), "New session", delete, /?session=<id> deep links, and
// the session state view (PATCH stateDelta).

import { request, get, path } from "./api.js";
import { el } from "./messages.js";

const pageSize = 20;

/** Sessions is the picker and the state view of the current session. */
export class Sessions {
  /**
   * ui holds the elements (list, more, filter, status, state, saveState,
   * deleteButton, current); onSelect(id, messages) shows a session's
   * transcript, onClear() an empty conversation.
   */
  constructor(ui, onSelect, onClear) {
    this.ui = ui;
    this.onSelect = onSelect;
    this.onClear = onClear;
    this.current = "";
    this.cursor = null;
    this.loaded = [];
    ui.more.addEventListener("click", () => this.loadPage().catch((e) => this.say(e.message)));
    ui.filter.addEventListener("input", () => this.renderList());
    ui.filter.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        this.openTyped();
      }
    });
    ui.saveState.addEventListener("click", () => this.saveState());
    ui.deleteButton.addEventListener("click", () => this.remove());
  }

  say(text) {
    this.ui.status.textContent = text;
  }

  /** refresh reloads the first page of the user's sessions. */
  async refresh() {
    this.loaded = [];
    this.cursor = null;
    await this.loadPage();
  }

  async loadPage() {
    const page = await get(path(["sessions"], { limit: pageSize, cursor: this.cursor || undefined }));
    this.loaded.push(...page.sessions);
    this.cursor = page.nextCursor;
    this.ui.more.hidden = !this.cursor;
    this.say("");
    this.renderList();
  }

  renderList() {
    const filter = this.ui.filter.value.trim();
    const items = this.loaded.filter((s) => !filter || s.id.includes(filter));
    const list = this.ui.list;
    list.replaceChildren();
    for (const s of items) {
      const li = el("li");
      const b = el("button", "session-item", s.id);
      b.type = "button";
      b.title = "Updated " + s.updatedAt;
      if (s.id === this.current) b.setAttribute("aria-current", "true");
      b.addEventListener("click", () => this.select(s.id).catch((e) => this.say(e.message)));
      li.append(b);
      list.append(li);
    }
    if (items.length === 0) {
      list.append(el("li", "empty", filter ? "No loaded session matches; press Enter to open that ID." : "No sessions yet."));
    }
  }

  /** openTyped opens a complete ID typed into the filter. */
  async openTyped() {
    const id = this.ui.filter.value.trim();
    if (!id) return;
    try {
      await this.select(id);
    } catch (e) {
      this.say(e.status === 404 ? "You have no session with the ID " + id + "." : e.message);
    }
  }

  /** create makes a new session and selects it. */
  async create() {
    const s = await request("POST", "/sessions", {});
    this.loaded.unshift(s);
    await this.select(s.id, s);
    return s.id;
  }

  /** ensure returns the current session's ID, creating one if needed. */
  async ensure() {
    return this.current || this.create();
  }

  /** adopt makes a session the server created (first message) current. */
  adopt(id) {
    if (!id || id === this.current) return;
    this.current = id;
    this.setURL(id);
    if (!this.loaded.some((s) => s.id === id)) this.loaded.unshift({ id, updatedAt: "" });
    this.renderList();
    this.loadState().catch(() => {});
  }

  /** select loads a session, its state and its whole transcript. */
  async select(id, known) {
    performance.mark("harnest:restore-start");
    const session = known || (await get(path(["sessions", id])));
    const messages = known ? [] : await this.transcript(id);
    this.current = session.id;
    this.setURL(session.id);
    this.showState(session.state);
    this.ui.current.textContent = session.id;
    this.ui.deleteButton.disabled = false;
    this.renderList();
    this.say("");
    this.onSelect(session.id, messages);
    performance.mark("harnest:transcript-rendered", { detail: { messages: messages.length } });
    requestAnimationFrame(() => setTimeout(() => {
      performance.mark("harnest:transcript-painted", { detail: { messages: messages.length } });
    }, 0));
  }

  /** transcript reads every page of a session's messages, oldest first. */
  async transcript(id) {
    const out = [];
    let cursor;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await get(path(["sessions", id, "messages"], { limit: 100, cursor }));
      out.push(...page.messages);
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    return out;
  }

  setURL(id) {
    const url = new URL(window.location.href);
    if (id) url.searchParams.set("session", id);
    else url.searchParams.delete("session");
    url.searchParams.delete("response");
    window.history.replaceState(null, "", url.pathname + url.search);
  }

  /** loadState shows the current session's state again. */
  async loadState() {
    if (!this.current) return;
    const s = await get(path(["sessions", this.current]));
    this.showState(s.state);
  }

  showState(state) {
    this.ui.state.value = JSON.stringify(state || {}, null, 2);
    this.ui.stateStatus.textContent = "";
  }

  /** saveState sends the edited state as a shallow stateDelta. */
  async saveState() {
    if (!this.current) {
      this.ui.stateStatus.textContent = "Select or create a session first.";
      return;
    }
    let delta;
    try {
      delta = JSON.parse(this.ui.state.value);
    } catch (e) {
      delta = null;
    }
    if (!delta || typeof delta !== "object" || Array.isArray(delta)) {
      this.ui.stateStatus.textContent = "The state must be a JSON object, such as {\"city\": \"Oslo\"}.";
      return;
    }
    try {
      const s = await request("PATCH", path(["sessions", this.current]), { stateDelta: delta });
      this.showState(s.state);
      this.ui.stateStatus.textContent = "State saved.";
    } catch (e) {
      this.ui.stateStatus.textContent = e.message;
    }
  }

  /** remove deletes the current session. */
  async remove() {
    if (!this.current) return;
    const id = this.current;
    try {
      await request("DELETE", path(["sessions", id]));
    } catch (e) {
      this.say(e.message);
      return;
    }
    this.loaded = this.loaded.filter((s) => s.id !== id);
    this.clear();
    this.say("Deleted session " + id + ".");
  }

  /** clear leaves the current session (the next message starts a new one). */
  clear() {
    this.current = "";
    this.setURL("");
    this.showState({});
    this.ui.current.textContent = "none yet";
    this.ui.deleteButton.disabled = true;
    this.renderList();
    this.onClear();
  }
}
