// evals.js: the Evals view: the agent's last `harnest eval` run (GET
// /evals/last, kept in the store by `harnest eval --redis-url`): its totals
// against the threshold and one row per case with its first failure.

import { get, ApiError } from "./api.js";
import { el } from "./messages.js";

export class EvalsView {
  constructor(els) {
    this.els = els;
    els.refresh.addEventListener("click", () => this.refresh());
  }

  say(text) {
    this.els.status.textContent = text;
  }

  async refresh() {
    try {
      this.render(await get("/evals/last"));
    } catch (e) {
      this.els.rows.replaceChildren();
      this.els.summary.textContent = "";
      if (e instanceof ApiError && e.status === 404) this.say("No eval run yet. " + e.message);
      else this.say(e.message);
    }
  }

  render(run) {
    const pct = (x) => (100 * x).toFixed(1) + "%";
    this.els.summary.textContent = run.passed + " passed, " + run.failed + " failed of " + run.total +
      " cases: pass rate " + pct(run.passRate) + " (threshold " + pct(run.threshold) + "): " + (run.ok ? "ok" : "FAILED") +
      " · " + run.casesFile + " · " + new Date(run.startedAt).toLocaleString();
    this.els.summary.className = "eval-summary " + (run.ok ? "pass" : "fail");
    const rows = this.els.rows;
    rows.replaceChildren();
    for (const c of run.cases) {
      const tr = el("tr", c.passed ? "pass" : "fail");
      tr.append(el("td", "", c.name), el("td", "state", c.passed ? "pass" : "FAIL"), el("td", "num", c.turns),
        el("td", "num", c.durationMs + " ms"), el("td", "", c.failure || ""));
      rows.append(tr);
    }
    this.say(run.omitted ? run.omitted + " more cases are in the run's JSON report." : "");
  }
}
