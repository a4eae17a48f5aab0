// main.js: wires the page together: discovery (GET /agent: the agent's
// name, whether /live and AG-UI are served), the token field, the views
// (Chat, Owner with the harness router, Traces, Schedules, Evals), the theme, and the ?session= deep link.

import { get, setToken } from "./api.js";
import { Sessions } from "./sessions.js";
import { Conversation } from "./conversation.js";
import { Uploads } from "./uploads.js";
import { OwnerView } from "./owner.js";
import { RouterView } from "./router.js";
import { TracesView } from "./traces.js";
import { SchedulesView } from "./schedules.js";
import { EvalsView } from "./evals.js";
import { setupTheme } from "./theme.js";
import { TypedForm } from "./typedform.js";

const $ = (id) => document.getElementById(id);

const pageStatus = (text) => {
  $("page-status").textContent = text;
};

const uploads = new Uploads($("file-picker"), $("composer"), $("uploads"));
const typedForm = new TypedForm($("typed-form"));
let conversation;
const sessions = new Sessions(
  {
    list: $("session-list"), more: $("more-sessions"), filter: $("session-filter"), status: $("sessions-status"),
    state: $("session-state"), saveState: $("save-state"), stateStatus: $("state-status"),
    deleteButton: $("delete-session"), current: $("current-session"),
  },
  (id, messages) => conversation.restore(messages),
  () => conversation.clear(),
);
conversation = new Conversation(
  {
    log: $("conversation"), form: $("composer"), message: $("message"), transport: $("transport"),
    background: $("background"), busy: $("busy"), send: $("send"), cancel: $("cancel"), status: $("composer-status"),
    typed: typedForm,
  },
  sessions,
  uploads,
);
const owner = new OwnerView({
  status: $("owner-status"), pairForm: $("pair-form"), pairName: $("pair-name"), pairKind: $("pair-kind"),
  code: $("pair-code"), participants: $("participants"), feed: $("feed"), refresh: $("owner-refresh"),
  onParticipants: () => router.loadStatus().catch(() => {}),
});
const router = new RouterView({
  section: $("router"), status: $("router-status"), choice: $("router-choice"), choiceForm: $("router-choice-form"),
  summary: $("router-summary"), harnesses: $("router-harnesses"), receipts: $("router-receipts"),
  more: $("router-more"), refresh: $("router-refresh"),
});
const traces = new TracesView($("traces"), $("traces-refresh"), $("traces-status"));
const schedules = new SchedulesView({
  form: $("schedule-form"), when: $("schedule-when"), zone: $("schedule-zone"), input: $("schedule-input"),
  paused: $("schedule-paused"), status: $("schedules-status"), rows: $("schedule-rows"), fires: $("schedule-fires"),
  refresh: $("schedules-refresh"),
});
const evals = new EvalsView({ summary: $("evals-summary"), status: $("evals-status"), rows: $("eval-rows"), refresh: $("evals-refresh") });

$("new-session").addEventListener("click", () => {
  sessions.create().catch((e) => pageStatus(e.message));
});

// Views: one visible at a time; the owner feed is followed only while the
// Owner view is open.
let currentView = "chat";
for (const tab of document.querySelectorAll(".view-tab")) {
  tab.addEventListener("click", () => showView(tab.dataset.view));
}

function showView(name) {
  currentView = name;
  for (const tab of document.querySelectorAll(".view-tab")) {
    tab.setAttribute("aria-pressed", tab.dataset.view === name ? "true" : "false");
  }
  for (const v of ["chat", "owner", "traces", "schedules", "evals"]) $("view-" + v).hidden = v !== name;
  if (name === "owner") {
    owner.open();
    router.open();
  } else owner.close();
  if (name === "traces") traces.refresh();
  if (name === "schedules") schedules.refresh();
  if (name === "evals") evals.refresh();
}

// discover reads /agent (public) and enables the transports it serves.
async function discover() {
  const agent = await get("/agent");
  $("agent-name").textContent = agent.name || agent.id || "playground";
  document.title = (agent.name || agent.id) + " · harnest playground";
  const endpoints = agent.endpoints || {};
  for (const option of $("transport").options) {
    if (option.value === "Live") option.disabled = !endpoints.live;
    if (option.value === "AG-UI") option.disabled = !endpoints.agui;
  }
  $("docs-link").hidden = !endpoints.docs;
  listRoutes(endpoints);
  // A typed agent (spec.inputSchema) takes the object its form makes.
  const schema = agent.contract && agent.contract.inputSchema;
  if (schema && typeof schema === "object") {
    typedForm.setSchema(schema);
    $("message").placeholder = "Typed agent: fill in the form (a JSON object typed here is sent instead)";
  }
}

// listRoutes shows the doors /agent lists (each enabled door of this
// server: /responses, /live, /agui, /v1/responses, /api/chat, /mcp ...),
// each with its path.
function listRoutes(endpoints) {
  const list = $("route-list");
  list.replaceChildren();
  for (const [name, path] of Object.entries(endpoints).sort(([a], [b]) => a.localeCompare(b))) {
    if (typeof path !== "string") continue;
    const term = document.createElement("dt");
    term.textContent = name;
    const def = document.createElement("dd");
    const code = document.createElement("code");
    code.textContent = path;
    def.append(code);
    list.append(term, def);
  }
}

// start loads the user's sessions and the deep-linked session, if any.
async function start() {
  const params = new URLSearchParams(window.location.search);
  const wanted = params.get("session");
  // The picker's first page and the deep-linked session load at once.
  const selecting = wanted ? sessions.select(wanted) : null;
  if (selecting) selecting.catch(() => {}); // reported below
  try {
    await sessions.refresh();
    pageStatus("");
  } catch (e) {
    pageStatus(e.status === 401 ? "This server needs a token: " + e.message : e.message);
    return;
  }
  if (!selecting) return;
  try {
    await selecting;
  } catch (e) {
    pageStatus(e.status === 404 ? "You have no session with the ID " + wanted + "." : e.message);
    return;
  }
  // The session stream finds the running response, if any (a background
  // run the page started before a reload, or one another tab started).
  await conversation.followSession(wanted);
}

// The token is applied when the field changes or Enter is pressed in it.
function applyToken() {
  setToken($("token").value);
  start();
  if (currentView === "owner") {
    owner.open();
    router.open();
  }
}
$("token").addEventListener("change", applyToken);
$("token").addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    applyToken();
  }
});

setupTheme($("theme"));
discover().catch((e) => pageStatus("Could not read /agent: " + e.message));
start();
