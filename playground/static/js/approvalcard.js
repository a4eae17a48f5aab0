// approvalcard.js: the card of an approval. Every approval takes Approve
// and Deny (with an optional message told to the agent); one that lists
// "edit" in its answers takes edited arguments (JSON, checked by the
// server against the action's schema: a refusal shows on the card and the
// approval still waits), and one that lists "respond" a result used in the
// action's place.

import { el, pretty } from "./messages.js";

const decided = { approve: "Approved", deny: "Denied", edit: "Approved with edited arguments", respond: "Answered in its place" };

/** approvalCard makes the card; onDecision(answer) sends an answer. */
export function approvalCard(info, onDecision) {
  const answers = Array.isArray(info.answers) ? info.answers : [];
  const card = el("section", "card approval");
  card.setAttribute("aria-label", "Approval " + (info.action || ""));
  card.append(el("h4", "", "Approval needed: " + (info.action || "action")));
  if (info.message) card.append(el("p", "", info.message));
  if (info.arguments !== undefined) card.append(el("pre", "args", pretty(info.arguments)));

  const controls = el("div", "approval-answers");
  const buttons = el("div", "buttons");
  const approve = button("Approve", "primary");
  const deny = button("Deny");
  buttons.append(approve, deny);
  const message = field("input", "Denial message", "Message to the agent (with Deny, optional)");
  controls.append(buttons, message.label);
  const problem = el("p", "error");
  let edited, result;
  if (answers.includes("edit")) {
    edited = field("textarea", "Edited arguments", "Edited arguments (JSON)");
    edited.input.value = pretty(info.arguments === undefined ? {} : info.arguments);
    controls.append(edited.label, button("Run with these arguments"));
  }
  if (answers.includes("respond")) {
    result = field("textarea", "Result", "Result in the action's place (JSON)");
    result.input.value = "{}";
    controls.append(result.label, button("Answer in its place"));
  }
  card.append(controls, problem);

  const all = () => [...controls.querySelectorAll("button, input, textarea")];
  const decide = async (answer) => {
    problem.textContent = "";
    all().forEach((e) => (e.disabled = true));
    try {
      await onDecision(answer);
      controls.replaceWith(el("p", "decided", decided[answer.decision] || "Answered"));
      problem.remove();
    } catch (e) {
      all().forEach((x) => (x.disabled = false));
      problem.textContent = e.message;
    }
  };
  const json = (f, what) => {
    try {
      return JSON.parse(f.input.value);
    } catch {
      problem.textContent = what + " must be JSON.";
      return undefined;
    }
  };
  approve.addEventListener("click", () => decide({ decision: "approve" }));
  deny.addEventListener("click", () => {
    const text = message.input.value.trim();
    decide(text ? { decision: "deny", message: text } : { decision: "deny" });
  });
  for (const b of controls.querySelectorAll("button")) {
    if (b.textContent === "Run with these arguments") {
      b.addEventListener("click", () => {
        const args = json(edited, "The edited arguments");
        if (args !== undefined) decide({ decision: "edit", arguments: args });
      });
    }
    if (b.textContent === "Answer in its place") {
      b.addEventListener("click", () => {
        const value = json(result, "The result");
        if (value !== undefined) decide({ decision: "respond", result: value });
      });
    }
  }
  return card;
}

function button(text, className = "") {
  const b = el("button", className, text);
  b.type = "button";
  return b;
}

// field is a labelled input or textarea named name (its aria-label).
function field(tag, name, text) {
  const label = el("label", "", text);
  const input = el(tag, tag === "textarea" ? "tool-output" : "");
  input.setAttribute("aria-label", name);
  if (tag === "textarea") input.rows = 3;
  label.append(input);
  return { label, input };
}
