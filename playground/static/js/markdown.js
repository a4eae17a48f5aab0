// markdown.js: a small, safe Markdown renderer. It builds DOM nodes with
// createElement and textContent only, so no text from an agent is ever
// parsed as HTML: "<script>" stays the characters "<script>". Supported:
// paragraphs, headings, fenced code, block quotes, lists, rules, inline
// code, bold, italic, and links (http and https only).

/** renderMarkdown returns a DocumentFragment for the Markdown text. */
export function renderMarkdown(text) {
  const out = document.createDocumentFragment();
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      i = codeBlock(out, lines, i + 1, fence[1], fence[2]);
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      out.append(element("h" + Math.min(heading[1].length + 2, 6), heading[2]));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.append(document.createElement("hr"));
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quoted.push(lines[i++].replace(/^\s*> ?/, ""));
      const q = document.createElement("blockquote");
      q.append(renderMarkdown(quoted.join("\n")));
      out.append(q);
      continue;
    }
    if (listItem(line)) {
      i = list(out, lines, i);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== "" && !startsBlock(lines[i])) para.push(lines[i++]);
    out.append(element("p", para.join("\n")));
  }
  return out;
}

// startsBlock reports a line that ends a paragraph.
function startsBlock(line) {
  return /^\s*(```|~~~)/.test(line) || /^#{1,6}\s/.test(line) || /^\s*>/.test(line) || listItem(line) !== null;
}

// listItem matches "- item", "* item" or "1. item".
function listItem(line) {
  const m = /^\s*([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(line);
  if (!m) return null;
  return { ordered: /\d/.test(m[1]), text: m[2] };
}

function list(out, lines, i) {
  const first = listItem(lines[i]);
  const el = document.createElement(first.ordered ? "ol" : "ul");
  while (i < lines.length) {
    const item = listItem(lines[i]);
    if (!item || item.ordered !== first.ordered) break;
    let text = item.text;
    i++;
    // continuation lines are indented
    while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !listItem(lines[i])) text += "\n" + lines[i++].trim();
    el.append(element("li", text));
  }
  out.append(el);
  return i;
}

function codeBlock(out, lines, i, marker, language) {
  const body = [];
  while (i < lines.length && !lines[i].trim().startsWith(marker)) body.push(lines[i++]);
  const pre = document.createElement("pre");
  const code = document.createElement("code");
  if (language) code.dataset.language = language;
  code.textContent = body.join("\n");
  pre.append(code);
  out.append(pre);
  return i + 1; // past the closing fence (or the end)
}

// element makes a block element whose content is inline Markdown.
function element(tag, text) {
  const el = document.createElement(tag);
  el.append(renderInline(text));
  return el;
}

// The inline tokens, in the order they are tried at each position.
const inlinePattern = new RegExp(
  [
    "(`+)([\\s\\S]*?[^`])\\1(?!`)", // 1,2: code
    "\\*\\*([\\s\\S]+?)\\*\\*", // 3: bold
    "__([\\s\\S]+?)__", // 4: bold
    "\\*(?!\\s)([\\s\\S]+?)\\*", // 5: italic
    "\\b_(?!\\s)([\\s\\S]+?)_\\b", // 6: italic
    "\\[([^\\]\\n]+)\\]\\(\\s*([^()\\s]+)\\s*\\)", // 7,8: link
    "(https?://[^\\s<>]*[^\\s<>.,;:!?)\\]'\"])", // 9: bare URL
  ].join("|"),
  "g",
);

/** renderInline returns a DocumentFragment for one line's inline Markdown. */
export function renderInline(text) {
  const out = document.createDocumentFragment();
  let last = 0;
  inlinePattern.lastIndex = 0;
  const source = String(text);
  const matches = [...source.matchAll(inlinePattern)];
  for (const m of matches) {
    if (m.index < last) continue;
    out.append(lineBreaks(source.slice(last, m.index)));
    out.append(inlineToken(m));
    last = m.index + m[0].length;
  }
  out.append(lineBreaks(source.slice(last)));
  return out;
}

function inlineToken(m) {
  if (m[2] !== undefined) {
    const code = document.createElement("code");
    code.textContent = m[2].replace(/^ (.*) $/, "$1");
    return code;
  }
  const strong = m[3] ?? m[4];
  if (strong !== undefined) return wrap("strong", strong);
  const em = m[5] ?? m[6];
  if (em !== undefined) return wrap("em", em);
  if (m[7] !== undefined) return link(m[7], m[8]);
  return link(m[9], m[9]);
}

function wrap(tag, text) {
  const el = document.createElement(tag);
  el.append(renderInline(text));
  return el;
}

/** safeHref returns the absolute http(s) URL, or "" for anything else. */
export function safeHref(href) {
  try {
    const url = new URL(href, window.location.href);
    if (url.protocol === "http:" || url.protocol === "https:") return url.href;
  } catch (e) {
    // not a URL
  }
  return "";
}

// link makes an anchor for http(s) URLs; anything else (javascript:,
// data:) stays text.
function link(label, href) {
  const safe = safeHref(href);
  if (!safe) return document.createTextNode(label === href ? label : label + " (" + href + ")");
  const a = document.createElement("a");
  a.href = safe;
  a.rel = "noopener noreferrer";
  a.target = "_blank";
  a.append(label === href ? document.createTextNode(label) : renderInline(label));
  return a;
}

// lineBreaks keeps single newlines inside a paragraph as <br>.
function lineBreaks(text) {
  const out = document.createDocumentFragment();
  text.split("\n").forEach((part, n) => {
    if (n > 0) out.append(document.createElement("br"));
    if (part) out.append(document.createTextNode(part));
  });
  return out;
}
