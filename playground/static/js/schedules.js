// schedules.js: the Schedules view: the user's schedules (POST/GET/PATCH/
// DELETE /schedules), with pause, resume, run now and delete, and the fires
// of the one opened, each linking to its session.

import { get, request, path } from "./api.js";
import { el } from "./messages.js";

export class SchedulesView {
  constructor(els) {
    this.els = els;
    this.opened = "";
    els.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.create().catch((err) => this.say(err.message));
    });
    els.refresh.addEventListener("click", () => this.refresh());
  }

  say(text) {
    this.els.status.textContent = text;
  }

  async refresh() {
    try {
      const page = await get(path(["schedules"], { limit: 100 }));
      this.render(page.schedules);
      this.say(page.schedules.length ? "" : "No schedules yet.");
      if (this.opened) await this.showFires(this.opened);
    } catch (e) {
      this.say(e.message);
    }
  }

  async create() {
    const f = this.els;
    const body = { input: scheduleInput(f.input.value) };
    const when = f.when.value.trim();
    if (/^\d{4}-\d{2}-\d{2}T/.test(when)) body.at = when;
    else body.cron = when;
    if (f.zone.value.trim() && body.cron) body.timeZone = f.zone.value.trim();
    if (f.paused.checked) body.paused = true;
    const s = await request("POST", "/schedules", body);
    this.say("Created " + s.id + ".");
    f.input.value = "";
    await this.refresh();
  }

  render(schedules) {
    const rows = this.els.rows;
    rows.replaceChildren();
    for (const s of schedules) {
      const tr = el("tr");
      tr.dataset.id = s.id;
      tr.append(
        el("td", "", s.cron ? s.cron + " (" + s.timeZone + ")" : "once at " + s.at),
        el("td", "", typeof s.input === "string" ? s.input : JSON.stringify(s.input)),
        el("td", "", s.paused ? "paused" : s.nextFireAt || "never again"),
        el("td", "", s.fires),
      );
      const actions = el("td", "actions");
      const button = (text, fn) => {
        const b = el("button", "small", text);
        b.type = "button";
        b.setAttribute("aria-label", text + " " + s.id);
        b.addEventListener("click", () => fn().catch((e) => this.say(e.message)));
        actions.append(b);
      };
      const act = (verb) => () => request("POST", path(["schedules", s.id, verb])).then(() => this.refresh());
      button(s.paused ? "Resume" : "Pause", act(s.paused ? "resume" : "pause"));
      button("Run now", async () => {
        const fire = await request("POST", path(["schedules", s.id, "run"]));
        this.opened = s.id;
        this.say("Fire " + fire.seq + ": " + fire.status + (fire.error ? " (" + fire.error + ")" : "") + ".");
        await this.refresh();
      });
      button("Fires", () => {
        this.opened = s.id;
        return this.showFires(s.id);
      });
      button("Delete", async () => {
        await request("DELETE", path(["schedules", s.id]));
        if (this.opened === s.id) {
          this.opened = "";
          this.els.fires.replaceChildren();
        }
        await this.refresh();
      });
      tr.append(actions);
      rows.append(tr);
    }
  }

  async showFires(id) {
    const page = await get(path(["schedules", id, "fires"], { limit: 20 }));
    const list = this.els.fires;
    list.replaceChildren(el("h3", "", "Fires of " + id));
    const ul = el("ul", "fires");
    for (const f of page.fires) {
      const li = el("li", "fire", "#" + f.seq + " " + f.at + " · " + f.status + (f.manual ? " · run now" : "") + (f.error ? " · " + f.error : "") + " · ");
      const a = el("a", "", f.responseId);
      a.href = "/?session=" + encodeURIComponent(f.sessionId);
      li.append(a);
      ul.append(li);
    }
    if (!page.fires.length) ul.append(el("li", "", "No fires yet."));
    list.append(ul);
  }
}

// scheduleInput is the input a schedule sends: an object when the text is
// one (an agent with an input schema takes only that), else the text.
function scheduleInput(text) {
  if (/^\s*\{/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all: sent as text, and the server says what it wants
    }
  }
  return text;
}
