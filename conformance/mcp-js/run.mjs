// Drives harnest's /mcp with the official TypeScript MCP SDK client:
//   node run.mjs <scenario> <url>
// scenario: "list-progress" (list the tools, call with progress twice),
// "elicit" (a call whose approval is asked by elicitation, approved), or
// "cancel" (a call cancelled after its first progress notification).
// Prints one JSON line with what happened; the Go test judges it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [scenario, url] = process.argv.slice(2);
const client = new Client({ name: "harnest-mcp-js", version: "1" }, { capabilities: { elicitation: { form: {} } } });
let asked = 0;
client.setRequestHandler(ElicitRequestSchema, async () => {
  asked++;
  return { action: "accept", content: { decision: "approve" } };
});
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const out = { scenario };
const text = (res) => res.structuredContent?.text;

if (scenario === "list-progress") {
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => t.name);
  out.calls = [];
  for (const message of ["one two three four", "five six seven eight"]) {
    let progress = "";
    const res = await client.callTool({ name: "hello", arguments: { message } }, undefined, {
      onprogress: (p) => { progress += p.message ?? ""; },
      timeout: 20000,
    });
    out.calls.push({ text: text(res), progress });
  }
} else if (scenario === "elicit") {
  const res = await client.callTool({ name: "hello", arguments: { message: "send it" } }, undefined, { timeout: 20000 });
  out.status = res.structuredContent?.status;
  out.text = text(res);
  out.asked = asked;
} else if (scenario === "cancel") {
  const abort = new AbortController();
  try {
    await client.callTool({ name: "hello", arguments: { message: "a long story told slowly to the end" } }, undefined, {
      signal: abort.signal,
      timeout: 20000,
      onprogress: (p) => {
        if (!out.meta) {
          out.meta = p._meta ?? null;
          abort.abort("the user stopped it");
        }
      },
    });
    out.error = null;
  } catch (e) {
    out.error = String(e?.message ?? e);
  }
  await new Promise((r) => setTimeout(r, 200)); // let the cancel notification go out
}
await transport.terminateSession().catch(() => {});
await client.close();
console.log(JSON.stringify(out));
