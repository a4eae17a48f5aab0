// A scripted chat model for tests (HARNEST_FAKE_MODEL=1): no network. It
// answers from the last message and streams its text word by word.
//   "look up X"       -> a lookup tool call with {query: X}
//   "send ... to NAME" -> a send_message tool call with {to: NAME}
//   a tool result      -> "The lookup found N entries." / "Sent to NAME." / "Not sent."
//   anything else      -> a greeting that names the turn (from the system message)
import { chatModels, messages as lcMessages, outputs } from "../../adapters/node/langgraph.js";

const { BaseChatModel } = chatModels;
const { AIMessageChunk } = lcMessages;
const { ChatGenerationChunk } = outputs;

/** ScriptedChatModel is the fake model; bindTools returns the model itself. */
export class ScriptedChatModel extends BaseChatModel {
  _llmType() {
    return "scripted";
  }

  bindTools() {
    return this;
  }

  async _generate(messages, options, runManager) {
    let message = null;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      message = message ? message.concat(chunk.message) : chunk.message;
    }
    return { generations: [{ text: String(message.content), message }] };
  }

  async *_streamResponseChunks(messages, _options, runManager) {
    const reply = scriptedReply(messages);
    const usage = { input_tokens: 12, output_tokens: 5, total_tokens: 17 };
    if (reply.call) {
      const call = { id: reply.call.id, name: reply.call.name, args: JSON.stringify(reply.call.args), index: 0, type: "tool_call_chunk" };
      yield new ChatGenerationChunk({ text: "", message: new AIMessageChunk({ content: "", tool_call_chunks: [call], usage_metadata: usage }) });
      return;
    }
    const words = reply.text.split(/(?<= )/);
    // HARNEST_FAKE_MODEL_DELAY_MS paces the words (tests that kill a replica mid-answer).
    const delay = Number(process.env.HARNEST_FAKE_MODEL_DELAY_MS) || 0;
    for (const [i, word] of words.entries()) {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      const chunk = new AIMessageChunk({ content: word, usage_metadata: i === words.length - 1 ? usage : undefined });
      await runManager?.handleLLMNewToken(word);
      yield new ChatGenerationChunk({ text: word, message: chunk });
    }
  }
}

function scriptedReply(messages) {
  const last = messages[messages.length - 1];
  const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  if (last._getType() === "tool") {
    if (last.name === "lookup") return { text: `The lookup found ${JSON.parse(text).entries} entries.` };
    return { text: text.startsWith("sent") ? `Sent to ${text.slice(8)}.` : "Not sent." };
  }
  const lookup = text.match(/look up (.+)$/i);
  if (lookup) return { call: { id: `call_lookup_${messages.length}`, name: "lookup", args: { query: lookup[1] } } };
  const send = text.match(/send .* to (\w+)/i);
  if (send) return { call: { id: `call_send_${messages.length}`, name: "send_message", args: { to: send[1], text: "Hello!" } } };
  const system = messages.find((m) => m._getType() === "system");
  const turn = system ? String(system.content).match(/turn (\d+)/) : null;
  return { text: `Hello! This is turn ${turn ? turn[1] : "?"} of our conversation.` };
}
