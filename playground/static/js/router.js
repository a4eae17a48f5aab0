// router.js: the harness router in the Owner view, through the owner
// routes under /owner/router (404 when the agent has no router, or the
// caller is not an owner: the section then stays hidden). It shows the
// harnesses (kind, skills, state, today's cost) with Pause / Resume, the
// choice with a picker, today's counts, and the latest receipts, a page at
// a time. Receipts hold no text of the turns.

import { get, request, path } from "./api.js";
import { el } from "./messages.js";

const prefix = "/owner/router";
const receiptsPerPage = 10;

const stateWords = { ready: "ready", paused: "paused", cooling_down: "cooling down", offline: "offline" };

/** RouterView is the router's part of the Owner view. */
export class RouterView {
  /**
   * ui: section, status, choice, choiceForm, summary, harnesses (tbody),
   * receipts (tbody), more, refresh.
   */
  constructor(ui) {
    this.ui = ui;
    this.cursor = null;
    ui.choiceForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.saveChoice();
    });
    ui.more.addEventListener("click", () => this.loadReceipts(false));
    ui.refresh.addEventListener("click", () => this.open());
  }

  say(text) {
    this.ui.status.textContent = text;
  }

  /** open shows the router when there is one, with its first receipts. */
  async open() {
    let configured;
    try {
      configured = await this.loadStatus();
    } catch (e) {
      this.say(e.message);
      return;
    }
    if (!configured) return;
    try {
      await this.loadReceipts(true);
      this.say("");
    } catch (e) {
      this.say(e.message);
    }
  }

  /** loadStatus reads GET /owner/router; false when there is no router. */
  async loadStatus() {
    let status;
    try {
      status = await get(prefix);
    } catch (e) {
      if (e.status === 404) {
        this.ui.section.hidden = true;
        return false;
      }
      throw e;
    }
    this.ui.section.hidden = false;
    this.showStatus(status);
    return true;
  }

  showStatus(s) {
    const names = s.harnesses.map((h) => h.name);
    const choices = ["", ...names, "auto"];
    if (s.choice && !choices.includes(s.choice)) choices.push(s.choice); // a model-router tier
    this.ui.choice.replaceChildren(...choices.map((c) => {
      const o = el("option", "", c === "" ? "no choice (the house answers)" : c);
      o.value = c;
      o.selected = c === s.choice;
      return o;
    }));
    const cap = s.dailyTurns === null || s.dailyTurns === undefined ? "" : " (your cap " + s.dailyTurns + ")";
    this.ui.summary.textContent = "House: " + s.house + " · fallback: " + s.fallback +
      " · owner's turns: " + s.turns.owner + " · visitors' turns: " + s.turns.visitor +
      " · routed today: " + s.turnsToday + " of " + s.planDailyTurns + cap +
      " · visitors today: " + s.visitorTurnsToday;
    this.ui.harnesses.replaceChildren(...s.harnesses.map((h) => this.harnessRow(h)));
  }

  harnessRow(h) {
    const tr = el("tr", "harness");
    tr.dataset.name = h.name;
    const state = el("td", "state " + h.state, stateWords[h.state] || h.state);
    if (!h.allowed) state.textContent += " (not allowed)";
    tr.append(el("td", "", h.name), el("td", "", h.kind), el("td", "", h.skills.join(", ")), state,
      el("td", "num", dollars(h.costTodayMicros)));
    const action = h.state === "paused" ? "Resume" : "Pause";
    const b = el("button", "small", action);
    b.type = "button";
    b.setAttribute("aria-label", action + " " + h.name);
    b.addEventListener("click", async () => {
      try {
        this.showStatus(await request("POST", prefix + path(["harnesses", h.name, action.toLowerCase()])));
        this.say("");
      } catch (e) {
        this.say(e.message);
      }
    });
    const actions = el("td");
    actions.append(b);
    tr.append(actions);
    return tr;
  }

  async saveChoice() {
    try {
      this.showStatus(await request("POST", prefix + "/choice", { choice: this.ui.choice.value }));
      this.say("Choice saved.");
    } catch (e) {
      this.say(e.message);
    }
  }

  /** loadReceipts shows the newest page (first) or appends the next one. */
  async loadReceipts(first) {
    const query = { limit: String(receiptsPerPage) };
    if (!first && this.cursor) query.cursor = this.cursor;
    const page = await get(prefix + "/receipts?" + new URLSearchParams(query));
    if (first) this.ui.receipts.replaceChildren();
    for (const r of page.receipts) this.ui.receipts.append(receiptRow(r));
    if (first && page.receipts.length === 0) {
      const tr = el("tr", "empty");
      const td = el("td", "", "No routed turns yet.");
      td.colSpan = 7;
      tr.append(td);
      this.ui.receipts.append(tr);
    }
    this.cursor = page.nextCursor;
    this.ui.more.hidden = !page.nextCursor;
  }
}

// receiptRow shows one receipt: who was chosen, who answered, why, the
// rungs tried, the waits and the cost.
function receiptRow(r) {
  const tr = el("tr", "receipt");
  const rungs = (r.rungs || []).map((g) => g.name + (g.reason ? " (" + g.reason + ")" : "")).join(" → ");
  tr.append(
    el("td", "at", r.at.replace("T", " ").slice(0, 19) + " UTC"),
    el("td", "", r.choice + (r.visitor ? " · visitor" : "")),
    el("td", "", r.answeredBy),
    el("td", "reason", r.reason || "—"),
    el("td", "", rungs),
    el("td", "num", r.waitMs + " / " + r.totalMs + " ms"),
    el("td", "num", dollars(r.costMicros)),
  );
  return tr;
}

// dollars writes micro-dollars as dollars.
function dollars(micros) {
  return "$" + (micros / 1e6).toFixed(micros > 0 && micros < 10000 ? 6 : 2);
}
