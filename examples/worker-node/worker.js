// An example harnest worker: the exec backend's worker mode, in Node.js.
//
// It needs nothing but Node itself (no npm packages). harnest starts it once
// and sends it turns as JSON lines on stdin; it answers with JSON lines on
// stdout (docs/worker-protocol.md). Logs go to stderr, which harnest puts in
// its own log and never shows to clients.
//
// What it does is driven by words in the input:
//
//   tool     calls a pretend "lookup" tool first (tool_call and tool_result)
//   approve  asks a human to approve "send_reply"; answers only if approved
//   ask      asks the client to run its "get_location" tool
//   slow     answers in many small pieces, slowly (try cancelling)
//
// Every turn also sends a thinking delta, counts turns in the session state
// ("turns") and reports its framework in a metadata event.
'use strict';

const readline = require('node:readline');

// Lines from harnest, parsed, waiting to be taken; null means stdin ended.
const inbox = [];
let wakeUp = null; // resolves the pending wait for a line, if any

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (line) => {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    log('ignoring a line that is not JSON');
    return;
  }
  deliver(message);
});
input.on('close', () => deliver(null));

function deliver(message) {
  inbox.push(message);
  if (wakeUp) {
    const wake = wakeUp;
    wakeUp = null;
    wake();
  }
}

// next resolves to the next line (null at the end of stdin), or to undefined
// after timeoutMs milliseconds if one is given.
function next(timeoutMs) {
  if (inbox.length > 0) return Promise.resolve(inbox.shift());
  return new Promise((resolve) => {
    let timer = null;
    wakeUp = () => {
      if (timer) clearTimeout(timer);
      resolve(inbox.shift());
    };
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        wakeUp = null;
        resolve(undefined);
      }, timeoutMs);
    }
  });
}

function send(message) {
  // JSON.stringify escapes newlines, so this is exactly one line. Writes
  // to a pipe are synchronous on Linux, so lines are never reordered.
  process.stdout.write(JSON.stringify(message) + '\n');
}

function log(text) {
  process.stderr.write(text + '\n');
}

class Cancelled extends Error {}
class EndOfInput extends Error {}

class Turn {
  constructor(message) {
    this.id = message.id;
    this.input = message.input || '';
    this.state = message.state || {};
    this.requests = 0;
    this.saved = []; // lines that arrived before they were waited for
  }

  send(type, fields = {}) {
    send({ type, id: this.id, ...fields });
  }

  // take resolves to the next line for this turn, or undefined after
  // timeoutMs. It throws Cancelled on a cancel for this turn.
  async take(timeoutMs) {
    for (;;) {
      if (this.saved.length > 0) return this.saved.shift();
      const message = await next(timeoutMs);
      if (message === undefined) return undefined;
      if (message === null) throw new EndOfInput();
      if (message.id !== this.id) continue; // a late line for an earlier turn
      if (message.type === 'cancel') throw new Cancelled();
      return message;
    }
  }

  // check throws Cancelled if a cancel arrived; it does not wait.
  check() {
    while (inbox.length > 0) {
      const message = inbox.shift();
      if (message === null) throw new EndOfInput();
      if (message.id !== this.id) continue;
      if (message.type === 'cancel') throw new Cancelled();
      this.saved.push(message);
    }
  }

  // request sends a request and waits for its answer, however long the
  // human or the client takes.
  async request(type, answerType, fields) {
    this.requests += 1;
    const requestId = `req_${this.requests}`;
    this.send(type, { requestId, ...fields });
    for (;;) {
      const message = await this.take();
      if (message.type === answerType && message.requestId === requestId) return message;
    }
  }

  // sleep waits, but stops at once on a cancel.
  async sleep(ms) {
    const message = await this.take(ms);
    if (message !== undefined) this.saved.unshift(message);
  }
}

// pieces cuts text into at most n pieces at spaces; they join back to text.
function pieces(text, n) {
  const words = text.split(' ');
  n = Math.max(1, Math.min(n, words.length));
  const out = [];
  for (let i = 0; i < n; i++) {
    const chunk = words.slice(Math.floor((i * words.length) / n), Math.floor(((i + 1) * words.length) / n)).join(' ');
    out.push(i === n - 1 ? chunk : chunk + ' ');
  }
  return out;
}

async function runTurn(turn) {
  const words = turn.input.toLowerCase();
  turn.send('metadata', { framework: 'example-worker-node' });
  turn.send('thinking', { delta: 'Reading the message.' });

  const count = Number.isInteger(turn.state.turns) ? turn.state.turns + 1 : 1;
  turn.send('state', { delta: { turns: count } });

  let answer = `You said: ${turn.input}`;

  if (words.includes('tool')) {
    const callId = `call_lookup_${turn.id}`;
    turn.send('tool_call', { callId, name: 'lookup', arguments: { query: turn.input } });
    turn.check();
    turn.send('tool_result', { callId, name: 'lookup', output: { entries: 3 } });
    answer += ' The lookup found 3 entries.';
  }

  if (words.includes('approve')) {
    const reply = await turn.request('approval_request', 'approval', {
      action: 'send_reply',
      message: 'Send the reply to the user?',
      arguments: { text: turn.input },
    });
    if (reply.decision !== 'approve') {
      // Denied or expired: no answer at all; harnest records the response
      // as denied (or expired).
      log(`reply not sent: approval ${reply.decision}`);
      return;
    }
  }

  if (words.includes('ask')) {
    const result = await turn.request('client_tool_request', 'client_tool', {
      name: 'get_location',
      arguments: {},
    });
    if ('error' in result) {
      answer += ' I could not find out where you are.';
    } else {
      const location = typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
      answer += ` You are in ${location}.`;
    }
  }

  const slow = words.includes('slow');
  for (const piece of pieces(answer, slow ? 40 : 3)) {
    turn.check();
    turn.send('text', { delta: piece });
    if (slow) await turn.sleep(100);
  }
}

async function main() {
  for (;;) {
    const message = await next();
    if (message === null) return; // stdin ended: exit cleanly
    if (message.type !== 'turn') continue; // an answer or cancel for a turn that is over
    const turn = new Turn(message);
    try {
      await runTurn(turn);
    } catch (err) {
      if (err instanceof Cancelled) {
        log(`cancelled ${turn.id}`);
      } else if (err instanceof EndOfInput) {
        return;
      } else {
        // A bug: fail this turn, keep serving.
        log(`turn failed: ${err && err.stack ? err.stack : err}`);
        turn.send('error', { message: String(err && err.message ? err.message : err) });
        continue;
      }
    }
    turn.send('done');
  }
}

main();
