// A tiny chat model over an OpenAI-compatible endpoint:
// POST ${HARNEST_MODEL_URL}/chat/completions, not streamed (the adapter then
// sends each answer as one text delta). @langchain/core has no OpenAI client.
import { chatModels, functionCalling, messages } from "../../adapters/node/langgraph.js";

const { BaseChatModel } = chatModels;
const { AIMessage } = messages;
const { convertToOpenAITool } = functionCalling;

/** OpenAICompatibleChat calls {url}/chat/completions with {model, apiKey}. */
export class OpenAICompatibleChat extends BaseChatModel {
  constructor({ url, model, apiKey, tools = [] }) {
    super({});
    this.url = url.replace(/\/+$/, "");
    this.model = model;
    this.apiKey = apiKey;
    this.tools = tools;
  }

  _llmType() {
    return "openai-compatible";
  }

  /** bindTools returns a copy of the model that offers tools to the endpoint. */
  bindTools(tools) {
    return new OpenAICompatibleChat({ url: this.url, model: this.model, apiKey: this.apiKey, tools });
  }

  async _generate(messages, options) {
    const body = { model: this.model, messages: messages.map(toOpenAI) };
    if (this.tools.length > 0) body.tools = this.tools.map((tool) => convertToOpenAITool(tool));
    const headers = { "content-type": "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const response = await fetch(`${this.url}/chat/completions`, { method: "POST", headers, body: JSON.stringify(body), signal: options.signal });
    if (!response.ok) throw new Error(`the model endpoint answered ${response.status}: check HARNEST_MODEL_URL, HARNEST_MODEL and OPENAI_API_KEY`);
    const data = await response.json();
    const choice = data.choices[0].message;
    const toolCalls = (choice.tool_calls || []).map((call) => ({ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments || "{}"), type: "tool_call" }));
    const usage = data.usage ? { input_tokens: data.usage.prompt_tokens || 0, output_tokens: data.usage.completion_tokens || 0, total_tokens: data.usage.total_tokens || 0 } : undefined;
    const message = new AIMessage({ content: choice.content || "", tool_calls: toolCalls, usage_metadata: usage });
    return { generations: [{ text: message.content, message }] };
  }
}

// toOpenAI turns a LangChain message into a Chat Completions message.
function toOpenAI(message) {
  const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
  switch (message._getType()) {
    case "system":
      return { role: "system", content };
    case "human":
      return { role: "user", content };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content };
    default: {
      const out = { role: "assistant", content };
      if (message.tool_calls && message.tool_calls.length > 0) {
        out.tool_calls = message.tool_calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }));
      }
      return out;
    }
  }
}
