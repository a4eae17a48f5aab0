// OpenAIModel: an ADK BaseLlm over any OpenAI-compatible Chat Completions
// endpoint (Ollama, vLLM, llama.cpp, OpenAI, ...), through fetch. It sends the
// conversation and the tools, and answers with one complete response (no
// token streaming).
import { adk } from "../../adapters/node/adk.js";

/** OpenAIModel calls `${baseUrl}/chat/completions` with model and apiKey. */
export class OpenAIModel extends adk.BaseLlm {
  constructor({ baseUrl, model, apiKey }) {
    super({ model });
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.apiKey = apiKey;
  }

  async *generateContentAsync(request, _stream, abortSignal) {
    const body = { model: this.model, messages: toMessages(request), tools: toTools(request) };
    if (body.tools.length === 0) delete body.tools;
    const headers = { "Content-Type": "application/json" };
    if (this.apiKey) headers.Authorization = "Bearer " + this.apiKey;
    const reply = await fetch(this.baseUrl + "/chat/completions", {
      method: "POST", headers, body: JSON.stringify(body), signal: abortSignal,
    });
    if (!reply.ok) {
      throw new Error(`the model endpoint answered ${reply.status}; check HARNEST_MODEL_URL, HARNEST_MODEL and OPENAI_API_KEY`);
    }
    const answer = await reply.json();
    const message = answer.choices?.[0]?.message || {};
    const parts = [];
    if (message.reasoning_content) parts.push({ text: message.reasoning_content, thought: true });
    if (message.content) parts.push({ text: message.content });
    for (const c of message.tool_calls || []) {
      parts.push({ functionCall: { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || "{}") } });
    }
    const u = answer.usage || {};
    yield {
      content: { role: "model", parts },
      usageMetadata: { promptTokenCount: u.prompt_tokens, candidatesTokenCount: u.completion_tokens, totalTokenCount: u.total_tokens },
      turnComplete: true,
    };
  }

  async connect() {
    throw new Error("OpenAIModel has no live mode");
  }
}

/** toMessages turns ADK contents (and the system instruction) into chat messages. */
function toMessages(request) {
  const messages = [];
  const system = request.config?.systemInstruction;
  const systemText = typeof system === "string" ? system : (system?.parts || []).map((p) => p.text || "").join("\n");
  if (systemText) messages.push({ role: "system", content: systemText });
  for (const content of request.contents) {
    const calls = [];
    let text = "";
    for (const part of content.parts || []) {
      if (part.thought) continue;
      if (part.text) text += part.text;
      if (part.functionCall) {
        calls.push({ id: part.functionCall.id, type: "function",
          function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args || {}) } });
      }
      if (part.functionResponse) {
        messages.push({ role: "tool", tool_call_id: part.functionResponse.id, content: JSON.stringify(part.functionResponse.response ?? null) });
      }
    }
    const role = content.role === "model" ? "assistant" : "user";
    if (calls.length > 0) messages.push({ role: "assistant", content: text || null, tool_calls: calls });
    else if (text) messages.push({ role, content: text });
  }
  return messages;
}

/** toTools turns the request's function declarations into chat tools. */
function toTools(request) {
  const tools = [];
  for (const tool of request.config?.tools || []) {
    for (const d of tool.functionDeclarations || []) {
      tools.push({ type: "function", function: { name: d.name, description: d.description, parameters: lowerTypes(d.parameters || { type: "object", properties: {} }) } });
    }
  }
  return tools;
}

/** lowerTypes writes Gemini schema types (OBJECT, STRING) as JSON Schema's. */
function lowerTypes(schema) {
  if (Array.isArray(schema)) return schema.map(lowerTypes);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "type" && typeof value === "string" ? value.toLowerCase() : lowerTypes(value);
  }
  return out;
}
