// A remote A2A agent for harnest's a2a backend tests (backend/a2aremote):
// an @a2a-js/sdk DefaultRequestHandler behind the SDK's express JSON-RPC
// handler at /rpc and HTTP+JSON handler at /rest, with a streaming card
// that names one of them. Spec 1.0 uses @a2a-js/sdk 1.3.0, spec 0.3 the
// 0.3.14 package (installed as a2a-js-sdk-03).
//
// Usage: node remote-peer.mjs <1.0|0.3> <JSONRPC|HTTP+JSON> <port>
// (a 0.3 card preferring HTTP+JSON lists JSON-RPC as well).
// Listens on 127.0.0.1 only. Prints "listening <port>" when ready, then
// "started <taskId>" when a "hang" task starts and "cancelled <taskId>"
// when a task is cancelled.
//
// The executor acts on the message text, as the a2a-go peer of the Go
// tests does: "ask" asks "What is your name?" (input-required) and the
// answer on the same task completes with "Hello, <answer>!"; "hang" works
// until cancelled; anything else answers "turn N: <text>" in two appended
// artifact chunks, N counting the turns of the context.
import { randomUUID } from 'node:crypto';
import express from 'express';

const [version, binding, portArg] = process.argv.slice(2);
const port = Number(portArg);
if (!['1.0', '0.3'].includes(version) || !['JSONRPC', 'HTTP+JSON'].includes(binding) || !Number.isInteger(port)) {
  console.error('usage: node remote-peer.mjs <1.0|0.3> <JSONRPC|HTTP+JSON> <port>');
  process.exit(2);
}

const turns = new Map(); // contextId -> turns so far
const hanging = new Map(); // taskId -> resolve of the hang

function nextTurn(contextId) {
  const n = (turns.get(contextId) ?? 0) + 1;
  turns.set(contextId, n);
  return n;
}

// scenario is what the executor does, in wire-neutral steps that each
// version's publisher turns into its own events.
async function scenario(text, continuing, taskId, contextId, say) {
  await say.working('working on it');
  if (continuing) {
    await say.artifact(randomUUID(), `Hello, ${text}!`, false, true);
    return say.end('completed');
  }
  if (text === 'ask') return say.end('input-required', 'What is your name?');
  if (text === 'hang') {
    console.log(`started ${taskId}`);
    await new Promise((resolve) => {
      hanging.set(taskId, resolve);
      setTimeout(resolve, 20000);
    });
    return; // the cancel published the end
  }
  const id = randomUUID();
  await say.artifact(id, `turn ${nextTurn(contextId)}:`, false, false);
  await say.artifact(id, ` ${text}`, true, true);
  return say.end('completed');
}

function cancelled(taskId) {
  console.log(`cancelled ${taskId}`);
  hanging.get(taskId)?.();
  hanging.delete(taskId);
}

async function serve10() {
  const { Role, TaskState } = await import('@a2a-js/sdk');
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import('@a2a-js/sdk/server');
  const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } = await import('@a2a-js/sdk/server/express');
  const states = {
    completed: TaskState.TASK_STATE_COMPLETED, 'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
    working: TaskState.TASK_STATE_WORKING, canceled: TaskState.TASK_STATE_CANCELED, submitted: TaskState.TASK_STATE_SUBMITTED,
  };
  const part = (text) => ({ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' });
  const message = (ids, text) => ({ messageId: randomUUID(), ...ids, role: Role.ROLE_AGENT, parts: [part(text)],
    metadata: undefined, extensions: [], referenceTaskIds: [] });
  const status = (ids, state, text) => AgentEvent.statusUpdate({ ...ids, metadata: undefined,
    status: { state: states[state], message: text ? message(ids, text) : undefined, timestamp: new Date().toISOString() } });
  const contexts = new Map(); // taskId -> ids
  const executor = {
    async execute(rc, bus) {
      const ids = { taskId: rc.taskId, contextId: rc.contextId };
      contexts.set(rc.taskId, ids);
      bus.publish(AgentEvent.task(rc.task ?? { id: rc.taskId, contextId: rc.contextId, metadata: undefined,
        status: { state: states.submitted, message: undefined, timestamp: new Date().toISOString() },
        history: [rc.userMessage], artifacts: [] }));
      const text = rc.userMessage.parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value).join('');
      const continuing = rc.task?.status?.state === states['input-required'];
      let ended = false;
      await scenario(text, continuing, rc.taskId, rc.contextId, {
        working: async (t) => bus.publish(status(ids, 'working', t)),
        artifact: async (id, t, append, lastChunk) => bus.publish(AgentEvent.artifactUpdate({ ...ids, metadata: undefined,
          artifact: { artifactId: id, name: '', description: '', parts: [part(t)], metadata: undefined, extensions: [] },
          append, lastChunk })),
        end: async (state, t) => { ended = true; bus.publish(status(ids, state, t)); },
      });
      if (ended) bus.finished();
    },
    async cancelTask(taskId, bus) {
      cancelled(taskId);
      bus.publish(status(contexts.get(taskId) ?? { taskId, contextId: '' }, 'canceled'));
      bus.finished();
    },
  };
  const card = {
    name: 'js-remote', description: 'A remote agent for harnest tests.', version: '1.0.0',
    supportedInterfaces: [{ url: '', protocolBinding: binding, tenant: '', protocolVersion: '1.0' }],
    provider: undefined, capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'],
    skills: [], signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return { app, setURL: (base) => { card.supportedInterfaces[0].url = base + (binding === 'JSONRPC' ? '/rpc' : '/rest'); } };
}

async function serve03() {
  const { DefaultRequestHandler, InMemoryTaskStore } = await import('a2a-js-sdk-03/server');
  const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } = await import('a2a-js-sdk-03/server/express');
  const message = (ids, text) => ({ kind: 'message', messageId: randomUUID(), role: 'agent', parts: [{ kind: 'text', text }], ...ids });
  const status = (ids, state, text, final) => ({ kind: 'status-update', ...ids, final,
    status: { state, message: text ? message(ids, text) : undefined, timestamp: new Date().toISOString() } });
  const contexts = new Map();
  const executor = {
    async execute(rc, bus) {
      const ids = { taskId: rc.taskId, contextId: rc.contextId };
      contexts.set(rc.taskId, ids);
      bus.publish(rc.task ?? { kind: 'task', id: rc.taskId, contextId: rc.contextId,
        status: { state: 'submitted', timestamp: new Date().toISOString() }, history: [rc.userMessage], artifacts: [] });
      const text = rc.userMessage.parts.filter((p) => p.kind === 'text').map((p) => p.text).join('');
      const continuing = rc.task?.status?.state === 'input-required';
      let ended = false;
      await scenario(text, continuing, rc.taskId, rc.contextId, {
        working: async (t) => bus.publish(status(ids, 'working', t, false)),
        artifact: async (id, t, append, lastChunk) => bus.publish({ kind: 'artifact-update', ...ids,
          artifact: { artifactId: id, parts: [{ kind: 'text', text: t }] }, append, lastChunk }),
        end: async (state, t) => { ended = true; bus.publish(status(ids, state, t, true)); },
      });
      if (ended) bus.finished();
    },
    async cancelTask(taskId, bus) {
      cancelled(taskId);
      bus.publish(status(contexts.get(taskId) ?? { taskId, contextId: '' }, 'canceled', undefined, true));
      bus.finished();
    },
  };
  const card = {
    protocolVersion: '0.3.0', name: 'js-remote-03', description: 'A remote agent for harnest tests.', version: '1.0.0',
    url: '', preferredTransport: binding, additionalInterfaces: [], capabilities: { streaming: true },
    defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  // A 0.3 card that prefers HTTP+JSON also lists JSON-RPC: clients choose.
  return { app, setURL: (base) => {
    card.url = base + (binding === 'JSONRPC' ? '/rpc' : '/rest');
    card.additionalInterfaces = [{ url: card.url, transport: binding }];
    if (binding !== 'JSONRPC') card.additionalInterfaces.push({ url: base + '/rpc', transport: 'JSONRPC' });
  } };
}

const { app, setURL } = version === '1.0' ? await serve10() : await serve03();
const server = app.listen(port, '127.0.0.1', () => {
  const bound = server.address().port;
  setURL(`http://127.0.0.1:${bound}`);
  console.log(`listening ${bound}`);
});
server.on('error', (e) => {
  console.error(e);
  process.exit(1);
});
