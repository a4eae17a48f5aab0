// The ADK JS example: an LlmAgent with two tools, served by harnest.
//   lookup      looks a topic up (a pretend one) and counts lookups in the session state
//   send_reply  sends a reply; it needs a human's confirmation first
// The model is an OpenAI-compatible endpoint from the environment, or the
// scripted fake of fake-model.js with HARNEST_FAKE_MODEL=1 (tests).
//
// Outside this repository, import { LlmAgent, FunctionTool } from "@google/adk"
// and { serveAgent } from "@harnest/adapters/adk".
import { readFileSync } from "node:fs";

import { adk, serveAgent } from "../../adapters/node/adk.js";

import { FakeModel } from "./fake-model.js";
import { OpenAIModel } from "./openai-model.js";

const querySchema = { type: "OBJECT", properties: { query: { type: "STRING", description: "What to look up." } }, required: ["query"] };
const toSchema = { type: "OBJECT", properties: { to: { type: "STRING", description: "Who gets the reply." } }, required: ["to"] };

const lookup = new adk.FunctionTool({
  name: "lookup",
  description: "Looks a topic up and returns how many entries were found.",
  parameters: querySchema,
  execute: ({ query }, context) => {
    context.state.set("lookups", (context.state.get("lookups") || 0) + 1);
    context.state.set("lastQuery", query);
    return { query, entries: query.length };
  },
});

const sendReply = new adk.FunctionTool({
  name: "send_reply",
  description: "Sends a reply to someone. A human confirms every call.",
  parameters: toSchema,
  requireConfirmation: true,
  execute: ({ to }, context) => {
    context.state.set("lastReplyTo", to);
    return { sent: true, to };
  },
});

function model() {
  if (process.env.HARNEST_FAKE_MODEL === "1") return new FakeModel();
  return new OpenAIModel({
    baseUrl: process.env.HARNEST_MODEL_URL || "http://127.0.0.1:11434/v1",
    model: process.env.HARNEST_MODEL || "qwen3:8b",
    apiKey: process.env.OPENAI_API_KEY,
  });
}

const agent = new adk.LlmAgent({
  name: "adk_js_example",
  description: "Looks things up and sends replies once a human confirms.",
  model: model(),
  instruction: readFileSync(new URL("./instructions.md", import.meta.url), "utf8"),
  tools: [lookup, sendReply],
});

serveAgent(agent);
