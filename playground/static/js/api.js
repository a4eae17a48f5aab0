// api.js: every HTTP call the page makes. The bearer token lives in this
// module's memory only (never localStorage, never a cookie); errors carry
// the API's own "detail" sentence.

let token = "";

/** setToken keeps the token typed into the page (in memory only). */
export function setToken(value) {
  token = value.trim();
}

/** currentToken is the token in memory ("" when none). */
export function currentToken() {
  return token;
}

/** ApiError is a failed call: its message is the API's detail sentence. */
export class ApiError extends Error {
  constructor(status, code, detail) {
    super(detail);
    this.status = status;
    this.code = code;
  }
}

function headers(extra) {
  const h = new Headers(extra || {});
  if (token) h.set("Authorization", "Bearer " + token);
  return h;
}

// errorOf turns a failed answer into an ApiError with the API's detail.
async function errorOf(res) {
  let detail = "";
  let code = "";
  try {
    const body = await res.json();
    detail = typeof body.detail === "string" ? body.detail : "";
    code = typeof body.code === "string" ? body.code : "";
  } catch (e) {
    // not JSON: fall back to the status line below
  }
  if (!detail) detail = "The server answered " + res.status + " " + res.statusText + ".";
  if (res.status === 401) {
    detail += " Enter a token in the Token field.";
  }
  return new ApiError(res.status, code, detail);
}

/**
 * request calls the API and returns the decoded JSON (null for 204).
 * body is sent as JSON unless it is a Blob (uploads).
 */
export async function request(method, path, body, options) {
  const opts = options || {};
  const init = { method, headers: headers(opts.headers), signal: opts.signal };
  if (body instanceof Blob) {
    init.body = body;
    if (body.type) init.headers.set("Content-Type", body.type);
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers.set("Content-Type", "application/json");
  }
  const res = await fetch(path, init);
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/** get is request("GET", path). */
export function get(path, options) {
  return request("GET", path, undefined, options);
}

/** blobURL downloads a resource with the token and returns an object URL. */
export async function blobURL(path) {
  const res = await fetch(path, { headers: headers() });
  if (!res.ok) throw await errorOf(res);
  return URL.createObjectURL(await res.blob());
}

/**
 * stream opens a Server-Sent Events answer (POST with a JSON body, or GET
 * when body is undefined) and calls onFrame({event, id, data}) for each
 * frame, data parsed as JSON when it is JSON. It resolves when the stream
 * ends; abort it with options.signal.
 */
export async function stream(path, body, onFrame, options) {
  const opts = options || {};
  const init = { method: body === undefined ? "GET" : "POST", signal: opts.signal,
    headers: headers({ Accept: "text/event-stream" }) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers.set("Content-Type", "application/json");
  }
  const res = await fetch(path, init);
  if (!res.ok) throw await errorOf(res);
  if (opts.onOpen) opts.onOpen(res);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame = parseFrame(block);
      if (frame) onFrame(frame);
    }
  }
}

// parseFrame reads one SSE block; comments and empty blocks are null.
function parseFrame(block) {
  const frame = { event: "message", id: "", data: "" };
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") frame.event = value;
    else if (field === "id") frame.id = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  frame.data = data.join("\n");
  try {
    frame.data = JSON.parse(frame.data);
  } catch (e) {
    // keep the text
  }
  return frame;
}

/** path builds a URL path with encoded segments and a query. */
export function path(segments, query) {
  let p = "/" + segments.map((s) => encodeURIComponent(s)).join("/");
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const qs = q.toString();
  return qs ? p + "?" + qs : p;
}
