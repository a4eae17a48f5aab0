// A small chat page on harnest's useChat door, the way a React app writes
// one: useChat from @ai-sdk/react with resume: true (a reload picks the
// running answer up again), the chat's messages kept in sessionStorage
// across reloads, and a Stop button that aborts the request (stop()) and
// asks the server to stop the turn (POST /api/chat/{id}/stop). The chat ID
// and bearer token come from the page's query (?chat=...&token=...).
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);
const chatId = query.get("chat") ?? "demo";
const headers = { Authorization: "Bearer " + (query.get("token") ?? "") };
const saved = JSON.parse(sessionStorage.getItem("chat:" + chatId) ?? "[]");

function Chat() {
  const { messages, sendMessage, status, stop, error } = useChat({
    id: chatId,
    messages: saved,
    resume: true,
    transport: new DefaultChatTransport({ api: "/api/chat", headers }),
  });
  const [input, setInput] = useState("");
  const [stopped, setStopped] = useState(null);
  useEffect(() => {
    sessionStorage.setItem("chat:" + chatId, JSON.stringify(messages));
    window.__chat = { status, messages, stopped, error: error ? String(error) : null };
  }, [messages, status, stopped, error]);

  async function stopTurn() {
    await stop(); // aborts the request only
    const res = await fetch(`/api/chat/${encodeURIComponent(chatId)}/stop`, { method: "POST", headers });
    setStopped(await res.json());
  }

  return (
    <main>
      <p id="status">{status}</p>
      <ul id="messages">
        {messages.map((m) => (
          <li key={m.id} className={m.role}>
            {m.parts.map((p, i) => (p.type === "text" ? <span key={i}>{p.text}</span> : null))}
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          sendMessage({ text: input });
          setInput("");
        }}
      >
        <input id="msg" value={input} onChange={(e) => setInput(e.target.value)} />
        <button id="send" type="submit">Send</button>
        <button id="stop" type="button" onClick={stopTurn}>Stop</button>
      </form>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<Chat />);
