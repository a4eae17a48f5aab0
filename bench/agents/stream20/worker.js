// The harnest side of bench/run.sh's SSE comparison: an exec worker
// (docs/worker-protocol.md) in Node with no packages. Every turn streams 20
// text deltas, as a model streaming 20 tokens would; the ADK peer
// (bench/peers/adk/agents/stream20) does the same.
//
// Two words in the input change that, for the follower benchmarks:
//   approve    ask a human to approve first (the response then waits, and
//              its followers sit idle until the approval is answered)
//   deltas=N   stream N deltas instead of 20 (1..100000)
'use strict';

const readline = require('node:readline');

const DEFAULT_DELTAS = 20;
const MAX_DELTAS = 100000;

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function deltasOf(input) {
  const m = /deltas=(\d+)/.exec(input);
  if (!m) return DEFAULT_DELTAS;
  return Math.min(Math.max(Number(m[1]), 1), MAX_DELTAS);
}

// stream sends the turn's text deltas and ends it.
function stream(id, input) {
  const n = deltasOf(input);
  for (let i = 0; i < n; i++) {
    send({ type: 'text', id, delta: `w${i} ` });
  }
  send({ type: 'done', id });
}

// waiting maps a turn id to the turn waiting for its approval.
const waiting = new Map();

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write('ignoring a line that is not JSON\n');
    return;
  }
  const input = typeof msg.input === 'string' ? msg.input : '';
  switch (msg.type) {
    case 'turn':
      if (input.includes('approve')) {
        waiting.set(msg.id, input);
        send({ type: 'approval_request', id: msg.id, requestId: 'go', action: 'stream', message: 'Stream the answer?' });
      } else {
        stream(msg.id, input);
      }
      break;
    case 'approval': {
      const turnInput = waiting.get(msg.id);
      if (turnInput === undefined) return;
      waiting.delete(msg.id);
      if (msg.decision === 'approve') {
        stream(msg.id, turnInput);
      } else {
        send({ type: 'done', id: msg.id });
      }
      break;
    }
    case 'cancel':
      if (waiting.delete(msg.id)) send({ type: 'done', id: msg.id });
      break;
  }
});
lines.on('close', () => process.exit(0));
