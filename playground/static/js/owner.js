// owner.js: the Owner view (owner tokens, or the local user without
// auth): outside agents under /owner/outside-agents/. Create a pairing
// code, list participants with Pause / Resume / Disconnect, and follow the
// live feed of notices and stage items (say, progress, card, gesture, ask)
// over SSE.

import { get, request, stream, path } from "./api.js";
import { el } from "./messages.js";

const prefix = "/owner/outside-agents/";

const gestureWords = {
  wave: "waves", nod: "nods", shrug: "shrugs", think: "thinks", celebrate: "celebrates", point: "points", bow: "bows",
};

/** OwnerView is the outside-agents panel. */
export class OwnerView {
  /**
   * ui: status, pairForm, pairName, pairKind, code, participants, feed,
   * refresh; onParticipants (optional) is called after the participants
   * were listed again (the router's relay harnesses may have come online).
   */
  constructor(ui) {
    this.ui = ui;
    this.feedAbort = null;
    this.lastFeedID = "";
    ui.pairForm.addEventListener("submit", (e) => {
      e.preventDefault();
      this.pair();
    });
    ui.refresh.addEventListener("click", () => this.open());
  }

  say(text) {
    this.ui.status.textContent = text;
  }

  /** open loads participants and the feed, then follows the feed live. */
  async open() {
    this.close();
    try {
      await this.loadParticipants();
      const feed = await get(prefix + "feed?limit=20");
      this.ui.feed.replaceChildren();
      const items = feed.items.slice().reverse();
      for (const item of items) this.showFeedItem(item);
      this.lastFeedID = items.length ? items[items.length - 1].id : "";
      this.say("");
    } catch (e) {
      this.say(e.status === 404
        ? "The owner view needs an owner token (a token with owner: true), or the local user on a server without auth."
        : e.message);
      return;
    }
    this.follow();
  }

  /** close stops following the feed. */
  close() {
    if (this.feedAbort) this.feedAbort.abort();
    this.feedAbort = null;
  }

  async follow() {
    const controller = new AbortController();
    this.feedAbort = controller;
    this.ui.feed.dataset.live = "connecting";
    for (let attempt = 0; attempt < 20 && !controller.signal.aborted; attempt++) {
      try {
        const url = prefix + "feed/stream" + (this.lastFeedID ? "?after=" + encodeURIComponent(this.lastFeedID) : "");
        await stream(url, undefined, (f) => {
          if (!f.data || typeof f.data !== "object") return;
          this.lastFeedID = f.data.id || f.id || this.lastFeedID;
          this.showFeedItem(f.data);
          this.loadParticipants().catch(() => {});
        }, { signal: controller.signal, onOpen: () => { this.ui.feed.dataset.live = "open"; } });
      } catch (e) {
        if (e.name === "AbortError") return;
        this.say(e.message);
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  async pair() {
    try {
      const code = await request("POST", prefix + "pairings", {
        name: this.ui.pairName.value.trim(), kind: this.ui.pairKind.value.trim(),
      });
      this.ui.code.replaceChildren(
        el("span", "", "Pairing code: "), el("code", "pairing-code", code.code),
        el("span", "", " (single use, valid until " + code.expires_at + ")"));
    } catch (e) {
      this.ui.code.textContent = e.message;
    }
  }

  async loadParticipants() {
    const page = await get(prefix + "participants");
    const list = this.ui.participants;
    list.replaceChildren();
    if (page.participants.length === 0) list.append(el("li", "empty", "No outside agents are paired yet."));
    for (const p of page.participants) list.append(this.participant(p));
    if (this.ui.onParticipants) this.ui.onParticipants();
  }

  participant(p) {
    const li = el("li", "participant");
    li.append(el("strong", "", p.name), el("span", "", " (" + p.kind + ") · " + p.state));
    const actions = p.state === "paused" ? ["Resume", "Disconnect"] : ["Pause", "Disconnect"];
    for (const action of actions) {
      const b = el("button", "small", action);
      b.type = "button";
      b.setAttribute("aria-label", action + " " + p.name);
      b.addEventListener("click", async () => {
        try {
          await request("POST", prefix + path(["participants", p.participant_id, action.toLowerCase()]).slice(1));
          await this.loadParticipants();
        } catch (e) {
          this.say(e.message);
        }
      });
      li.append(b);
    }
    return li;
  }

  /** showFeedItem adds a notice or stage item to the top of the feed. */
  showFeedItem(entry) {
    const li = el("li", "feed-item " + entry.type);
    li.append(el("strong", "", entry.name + ": "));
    if (entry.type === "notice") {
      li.append(el("span", "", entry.text));
    } else {
      li.append(stageItem(entry.item || {}));
    }
    li.append(el("time", "at", " " + entry.at));
    this.ui.feed.prepend(li);
  }
}

// stageItem shows one stage item (text only; a card link only as a path
// on this site).
function stageItem(item) {
  switch (item.type) {
    case "say":
      return el("span", "", item.text);
    case "ask":
      return el("span", "ask", "asks: " + item.text);
    case "gesture":
      return el("span", "gesture", gestureWords[item.name] || item.name);
    case "progress": {
      const wrap = el("span", "progress");
      const bar = el("progress");
      bar.max = item.total;
      bar.value = item.step;
      bar.setAttribute("aria-label", item.label || "Progress");
      wrap.append(el("span", "", (item.label ? item.label + " " : "") + item.step + "/" + item.total + " "), bar);
      return wrap;
    }
    case "card": {
      const card = el("span", "stage-card");
      card.append(el("b", "", item.title));
      for (const line of item.lines || []) card.append(el("span", "line", line));
      if (typeof item.link === "string" && item.link.startsWith("/") && !item.link.startsWith("//")) {
        const a = el("a", "", item.link);
        a.href = item.link;
        a.rel = "noopener noreferrer";
        card.append(a);
      }
      return card;
    }
    default:
      return el("span", "", JSON.stringify(item));
  }
}
