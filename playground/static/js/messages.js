// messages.js: one message of the conversation as an <article> named
// "user" or "assistant": its answer as safe Markdown, its thinking in a
// separate collapsible "Thinking" panel, tool cards, activity, approval
// cards, client-tool forms, metadata and errors. Every piece of text from
// the agent goes in through textContent or the Markdown renderer.

import { approvalCard } from "./approvalcard.js";
import { renderMarkdown } from "./markdown.js";

/** el makes an element with a class and text content. */
export function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

/** pretty shows a JSON value for people. */
export function pretty(value) {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

/** MessageView is one article in the Conversation log. */
export class MessageView {
  constructor(log, role, label) {
    this.log = log;
    this.text = "";
    this.thinkingText = "";
    this.article = el("article", "message " + role);
    this.article.setAttribute("aria-label", role);
    const head = el("header", "message-head");
    head.append(el("span", "role", role));
    this.tag = el("span", "tag", label || "");
    head.append(this.tag);
    this.thinking = el("details", "thinking");
    this.thinking.append(el("summary", "", "Thinking"));
    this.thinkingBody = el("div", "thinking-text");
    this.thinking.append(this.thinkingBody);
    this.thinking.hidden = true;
    this.activity = el("div", "activity");
    this.body = el("div", "body");
    this.attachments = el("div", "attachments");
    this.meta = el("footer", "meta");
    this.article.append(head, this.thinking, this.activity, this.attachments, this.body, this.meta);
    log.append(this.article);
    this.scroll();
  }

  scroll() {
    this.log.scrollTop = this.log.scrollHeight;
  }

  /** setLabel shows the transport or status next to the role. */
  setLabel(text) {
    this.tag.textContent = text;
  }

  /** setBusy marks a message whose response is still running. */
  setBusy(busy) {
    this.article.setAttribute("aria-busy", busy ? "true" : "false");
  }

  /** appendText adds a streamed text delta. */
  appendText(delta) {
    this.setText(this.text + delta);
  }

  /** setText replaces the answer (rendered as safe Markdown). */
  setText(text) {
    this.text = text;
    this.body.replaceChildren(renderMarkdown(text));
    this.scroll();
  }

  /** appendThinking adds thinking text to the Thinking panel. */
  appendThinking(delta) {
    this.thinkingText += delta;
    this.thinking.hidden = false;
    this.thinkingBody.textContent = this.thinkingText;
  }

  /** setThinking replaces the thinking text. */
  setThinking(text) {
    this.thinkingText = "";
    if (text) this.appendThinking(text);
  }

  /** toolCall shows a tool call card; toolResult fills it in. */
  toolCall(id, name, args) {
    const card = el("section", "card tool");
    card.setAttribute("aria-label", "Tool call " + name);
    card.dataset.callId = id || "";
    card.append(el("h4", "", "Tool call: " + name));
    card.append(el("pre", "args", pretty(args)));
    this.activity.append(card);
    this.scroll();
    return card;
  }

  toolResult(callId, name, output) {
    let card = [...this.activity.querySelectorAll(".card.tool")].find((c) => c.dataset.callId === callId);
    if (!card) card = this.toolCall(callId, name, undefined);
    card.append(el("h5", "", "Result"));
    card.append(el("pre", "result", pretty(output)));
    this.scroll();
  }

  /** note adds one line of agent activity (or any status line). */
  note(text, kind) {
    this.activity.append(el("p", "note " + (kind || ""), text));
    this.scroll();
  }

  /** metadata shows the model, provider and usage of a model call. */
  metadata(ev) {
    const parts = [];
    if (ev.framework) parts.push("framework " + ev.framework);
    if (ev.provider) parts.push("provider " + ev.provider);
    if (ev.model) parts.push("model " + ev.model);
    if (ev.finishReason) parts.push("finish " + ev.finishReason);
    if (ev.usage) parts.push("tokens in " + ev.usage.inputTokens + ", out " + ev.usage.outputTokens);
    if (parts.length) this.meta.append(el("span", "meta-item", parts.join(" · ")));
  }

  /** footer shows the response's ID, status and timing. */
  footer(text) {
    let line = this.meta.querySelector(".meta-status");
    if (!line) {
      line = el("span", "meta-status");
      this.meta.prepend(line);
    }
    line.textContent = text;
  }

  /** error shows the API's detail sentence. */
  error(detail) {
    const p = el("p", "error", detail);
    p.setAttribute("role", "alert");
    this.article.append(p);
    this.scroll();
  }

  /**
   * approval shows an approval card (approvalcard.js); onDecision(answer)
   * is called with {decision, message?, arguments?, result?} until the
   * server takes one, and the card then says what was decided.
   */
  approval(info, onDecision) {
    const card = approvalCard(info, onDecision);
    this.activity.append(card);
    this.scroll();
    card.querySelector("button.primary").focus();
  }

  /**
   * clientTool shows a form for a client tool's JSON output; onOutput(value)
   * is called with the parsed JSON.
   */
  clientTool(info, onOutput) {
    const card = el("section", "card client-tool");
    card.setAttribute("aria-label", "Client tool " + info.name);
    card.append(el("h4", "", "Client tool: " + info.name));
    card.append(el("pre", "args", pretty(info.arguments)));
    const label = el("label", "", "Tool output (JSON)");
    const output = el("textarea", "tool-output");
    output.setAttribute("aria-label", "Tool output");
    output.rows = 3;
    output.value = "{}";
    label.append(output);
    const send = el("button", "primary", "Send output");
    send.type = "button";
    const problem = el("p", "error");
    card.append(label, send, problem);
    send.addEventListener("click", async () => {
      let value;
      try {
        value = JSON.parse(output.value);
      } catch (e) {
        problem.textContent = "The output must be JSON, such as {\"city\":\"Oslo\"} or \"text\".";
        return;
      }
      problem.textContent = "";
      send.disabled = output.disabled = true;
      try {
        await onOutput(value);
        label.replaceWith(el("pre", "result", pretty(value)));
        send.replaceWith(el("p", "decided", "Output sent"));
      } catch (e) {
        send.disabled = output.disabled = false;
        problem.textContent = e.message;
      }
    });
    this.activity.append(card);
    this.scroll();
    output.focus();
  }

  /** attach shows an attachment: an image preview or a file name. */
  attach(name, mediaType, url) {
    if (url && mediaType && mediaType.startsWith("image/")) {
      const img = el("img", "preview");
      img.alt = name || "image";
      img.src = url;
      this.attachments.append(img);
    } else {
      this.attachments.append(el("span", "file", (name || "file") + (mediaType ? " (" + mediaType + ")" : "")));
    }
  }
}
