// A scripted stand-in for a chat model, for tests without network
// (HARNEST_FAKE_MODEL=1). It is an ADK BaseLlm, so the LlmAgent runs exactly
// as with a real model: its tools are called, confirmed and answered.
//
// What it answers depends on the newest content of the request:
//   a lookup's result          -> "The lookup found N entries for Q."
//   send_reply's result        -> "Sent the reply to WHO." (or "I did not send it.")
//   user text "look up Q"      -> a call of lookup({query: Q})
//   user text "send ... to W"  -> a call of send_reply({to: W})
//   any other user text        -> a thought, then "Hello! You said: TEXT" streamed word by word
import { adk } from "../../adapters/node/adk.js";

/** FakeModel answers from the script above. */
export class FakeModel extends adk.BaseLlm {
  constructor() {
    super({ model: "fake-adk-model" });
  }

  async *generateContentAsync(request, stream) {
    const last = request.contents[request.contents.length - 1] || { parts: [] };
    const response = last.parts.find((p) => p.functionResponse)?.functionResponse;
    const text = last.parts.map((p) => p.text || "").join("");
    const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
    if (response) {
      yield* this.say(answerTo(response), stream, usage);
      return;
    }
    const lookup = /look up (.+)$/i.exec(text);
    if (lookup) {
      yield call("lookup", { query: lookup[1].trim() }, usage);
      return;
    }
    const send = /send .* to (\w+)/i.exec(text);
    if (send) {
      yield call("send_reply", { to: send[1] }, usage);
      return;
    }
    if (stream) yield { content: { role: "model", parts: [{ text: "Reading the message.", thought: true }] }, partial: true };
    yield* this.say("Hello! You said: " + text, stream, usage);
  }

  /** say streams text word by word (when streaming), then the whole of it. */
  async *say(text, stream, usage) {
    if (stream) {
      for (const word of text.match(/\S+\s*/g) || []) {
        yield { content: { role: "model", parts: [{ text: word }] }, partial: true };
      }
    }
    yield { content: { role: "model", parts: [{ text }] }, usageMetadata: usage, finishReason: "STOP", turnComplete: true };
  }

  async connect() {
    throw new Error("the fake model has no live mode");
  }
}

function call(name, args, usage) {
  return { content: { role: "model", parts: [{ functionCall: { name, args } }] }, usageMetadata: usage, finishReason: "STOP" };
}

function answerTo(response) {
  const r = response.response || {};
  if (response.name === "lookup") return `The lookup found ${r.entries} entries for ${r.query}.`;
  if (response.name === "send_reply") return r.sent ? `Sent the reply to ${r.to}.` : "I did not send it.";
  return "Done.";
}
