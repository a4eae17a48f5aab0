// A no-model ADK JS agent for bench/run.sh's SSE comparison: every turn
// streams 20 partial text events, then the final event with the whole text
// (the one ADK keeps in the session), like a model streaming 20 tokens. The
// harnest side is ../../../../agents/stream20 (an exec worker in Node).
import { BaseAgent, createEvent } from '@google/adk';

const DELTAS = 20;

class Stream20Agent extends BaseAgent {
  async *runAsyncImpl(ctx) {
    let text = '';
    for (let i = 0; i < DELTAS; i++) {
      const delta = `w${i} `;
      text += delta;
      yield createEvent({
        invocationId: ctx.invocationId,
        author: this.name,
        branch: ctx.branch,
        partial: true,
        content: { role: 'model', parts: [{ text: delta }] },
      });
    }
    yield createEvent({
      invocationId: ctx.invocationId,
      author: this.name,
      branch: ctx.branch,
      content: { role: 'model', parts: [{ text }] },
    });
  }

  async *runLiveImpl() {
    throw new Error('stream20 has no live mode');
  }
}

export const rootAgent = new Stream20Agent({ name: 'stream20', description: 'Streams 20 text deltas per turn, no model.' });
