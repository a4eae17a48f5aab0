// A chat page on harnest's useChat endpoint. The chat's ID is the harnest
// session: it lives in the address (?chat=...), so a reload finds the same
// chat, and resume: true picks up an answer that is still running. Stop
// aborts the request (stop()) and stops the turn on the server.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const url = new URL(location.href);
if (!url.searchParams.get("chat")) {
  url.searchParams.set("chat", crypto.randomUUID());
  history.replaceState(null, "", url);
}
const chatId = url.searchParams.get("chat");
const token = url.searchParams.get("token"); // when the server has auth tokens
const headers = token ? { Authorization: "Bearer " + token } : {};
const saved = JSON.parse(sessionStorage.getItem("chat:" + chatId) ?? "[]");

function Part({ part, onApprove }) {
  if (part.type === "text") return <p>{part.text}</p>;
  if (part.type === "reasoning") return <p className="reasoning">{part.text}</p>;
  if (part.type === "dynamic-tool" || part.type.startsWith("tool-")) {
    const name = part.toolName ?? part.type.slice(5);
    return (
      <div className="tool">
        <code>{name}({JSON.stringify(part.input)})</code> {part.state}
        {part.state === "output-available" && <pre>{JSON.stringify(part.output)}</pre>}
        {part.state === "approval-requested" && (
          <span>
            {part.approval.requestReason}{" "}
            <button onClick={() => onApprove(part.approval.id, true)}>Approve</button>
            <button onClick={() => onApprove(part.approval.id, false)}>Deny</button>
          </span>
        )}
      </div>
    );
  }
  if (part.type.startsWith("data-")) return <pre className="data">{part.type}: {JSON.stringify(part.data)}</pre>;
  return null;
}

function Chat() {
  const { messages, sendMessage, status, stop, error, addToolApprovalResponse } = useChat({
    id: chatId,
    messages: saved,
    resume: true,
    transport: new DefaultChatTransport({ api: "/api/chat", headers }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState("");
  useEffect(() => sessionStorage.setItem("chat:" + chatId, JSON.stringify(messages)), [messages]);

  async function stopTurn() {
    await stop(); // aborts this request only: the turn runs in the background
    await fetch(`/api/chat/${encodeURIComponent(chatId)}/stop`, { method: "POST", headers });
  }

  return (
    <main>
      <h1>useChat on harnest</h1>
      {messages.map((m) => (
        <section key={m.id} className={m.role}>
          <b>{m.role}</b>
          {m.parts.map((p, i) => (
            <Part key={i} part={p} onApprove={(id, approved) => addToolApprovalResponse({ id, approved })} />
          ))}
        </section>
      ))}
      {error && <p className="error">{String(error)}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (input.trim()) sendMessage({ text: input });
          setInput("");
        }}
      >
        <input value={input} onChange={(e) => setInput(e.target.value)} placeholder="Say something" autoFocus />
        <button type="submit" disabled={status !== "ready"}>Send</button>
        <button type="button" onClick={stopTurn} disabled={status !== "streaming" && status !== "submitted"}>Stop</button>
        <span> {status}</span>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<Chat />);
