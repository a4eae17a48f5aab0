// Helpers of the adapter tests: run a worker process and talk the protocol to it.
import { spawn } from "node:child_process";
import readline from "node:readline";

// startWorker runs a worker script and returns helpers to send lines and read them back.
export function startWorker(t, script, env = {}) {
  const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...env } });
  t.after(() => child.kill("SIGKILL"));
  const lines = [];
  let waiter = null;
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(JSON.parse(line));
    if (waiter) waiter();
  });
  const send = (message) => child.stdin.write(JSON.stringify(message) + "\n");
  // until collects lines up to and including the first for which stop is true.
  const until = async (stop) => {
    const got = [];
    for (let i = 0; i < 1000; i++) {
      while (lines.length > 0) {
        const line = lines.shift();
        got.push(line);
        if (stop(line)) return got;
      }
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, 5000);
        waiter = () => {
          clearTimeout(timer);
          waiter = null;
          resolve();
        };
      });
    }
    throw new Error("no line came");
  };
  const turn = (id, input, state = {}, extra = {}) =>
    send({ type: "turn", id, sessionId: "s", userId: "u", input, content: [], state, metadata: {}, history: [], ...extra });
  return { child, send, until, turn };
}

/** ends tells the last line of a turn. */
export const ends = (line) => line.type === "done" || line.type === "error";
