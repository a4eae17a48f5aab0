// A small ReAct-style LangGraph JS graph served by harnest through the
// LangGraph adapter (adapters/node/langgraph.js).
//
//   count ──> agent ──> tools ──> agent ...      (lookup)
//               └─────> confirm ──> tools ...    (send_message, after approval)
//
// "count" counts the turns of the session in the state key `turns`, which the
// adapter carries in and out of the session state. "confirm" interrupts for a
// human's approval before send_message runs; the adapter turns the interrupt
// into an approval request and resumes the graph with the decision.
import { readFileSync } from "node:fs";

// Outside this repository, import these from "@langchain/langgraph",
// "@langchain/langgraph/prebuilt", "@langchain/core/..." and
// "@harnest/adapters/langgraph".
import { langgraph, messages, prebuilt, serveGraph, tools as lcTools } from "../../adapters/node/langgraph.js";

import { ScriptedChatModel } from "./fake-model.js";
import { OpenAICompatibleChat } from "./openai-model.js";

const { Annotation, Command, END, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt } = langgraph;
const { SystemMessage, ToolMessage } = messages;
const { ToolNode } = prebuilt;
const { tool } = lcTools;

const lookup = tool(async ({ query }) => JSON.stringify({ query, entries: 3 }), {
  name: "lookup",
  description: "Looks a topic up and says how many entries it found.",
  schema: { type: "object", properties: { query: { type: "string", description: "what to look up" } }, required: ["query"] },
});

const sendMessage = tool(async ({ to }) => `sent to ${to}`, {
  name: "send_message",
  description: "Sends a message to someone. A human approves every send.",
  schema: { type: "object", properties: { to: { type: "string" }, text: { type: "string" } }, required: ["to", "text"] },
});

const tools = [lookup, sendMessage];
const instructions = readFileSync(new URL("./instructions.md", import.meta.url), "utf8");

function chatModel() {
  if (process.env.HARNEST_FAKE_MODEL === "1") return new ScriptedChatModel({});
  const url = process.env.HARNEST_MODEL_URL || "http://127.0.0.1:11434/v1";
  return new OpenAICompatibleChat({ url, model: process.env.HARNEST_MODEL || "qwen3:8b", apiKey: process.env.OPENAI_API_KEY });
}
const model = chatModel().bindTools(tools);

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  turns: Annotation({ reducer: (_, next) => next, default: () => 0 }),
});

const graph = new StateGraph(State)
  .addNode("count", (state) => ({ turns: (state.turns || 0) + 1 }))
  .addNode("agent", async (state) => {
    const system = new SystemMessage(`${instructions}\nThis is turn ${state.turns} of the conversation.`);
    return { messages: [await model.invoke([system, ...state.messages])] };
  })
  .addNode("tools", new ToolNode(tools))
  .addNode("confirm", confirmSend, { ends: ["tools", END] })
  .addEdge(START, "count")
  .addEdge("count", "agent")
  .addConditionalEdges("agent", route, ["tools", "confirm", END])
  .addEdge("tools", "agent")
  .compile({ checkpointer: new MemorySaver() });

// route sends tool calls to the tools, through confirm for send_message.
function route(state) {
  const calls = state.messages[state.messages.length - 1].tool_calls || [];
  if (calls.length === 0) return END;
  return calls.some((call) => call.name === "send_message") ? "confirm" : "tools";
}

// confirmSend asks a human before send_message runs; a denial answers the
// call with a refusal and ends the turn.
function confirmSend(state) {
  const call = state.messages[state.messages.length - 1].tool_calls.find((c) => c.name === "send_message");
  const decision = interrupt({ action: "send_message", message: `Send the message to ${call.args.to}?`, arguments: call.args });
  if (decision === "approve") return new Command({ goto: "tools" });
  return new Command({ goto: END, update: { messages: [new ToolMessage({ content: "not sent: denied", tool_call_id: call.id, name: call.name })] } });
}

serveGraph(graph, { framework: "langgraph" });
