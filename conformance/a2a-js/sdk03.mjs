// Drives harnest's A2A 0.3 bindings (JSON-RPC without A2A-Version, and
// HTTP+JSON under /v1/) with the @a2a-js/sdk 0.3.14 client, found through
// the served card's 0.3 fields. Usage: node sdk03.mjs <plainURL> <approvalURL> <slowURL>.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from 'a2a-js-sdk-03/client';
import { assert, check, finish } from './checks.mjs';

const [plainURL, approvalURL, slowURL] = process.argv.slice(2);

function message(text, extra = {}) {
  return { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra };
}

function texts(parts) {
  return (parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text).join('');
}

async function client(url, transport) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] });
  return new ClientFactory(options).createFromUrl(url);
}

async function collect(gen) {
  const out = [];
  for await (const item of gen) out.push(item);
  return out;
}

async function expectError(promise, pattern) {
  try {
    await promise;
  } catch (e) {
    const text = `${e?.name} ${e?.message} ${e?.code ?? ''}`;
    assert(pattern.test(text), `error ${text} does not match ${pattern}`);
    return;
  }
  throw new Error(`expected an error matching ${pattern}`);
}

for (const transport of ['JSONRPC', 'HTTP+JSON']) {
  const c = await client(plainURL, transport);
  let task;

  await check(`${transport} blocking send returns a message`, async () => {
    const res = await c.sendMessage({ message: message('hello') });
    assert(res.kind === 'message' && res.role === 'agent', `not an agent message: ${JSON.stringify(res)}`);
    assert(texts(res.parts) === 'Echo: hello', `text ${texts(res.parts)}`);
  });

  await check(`${transport} stream`, async () => {
    const events = await collect(c.sendMessageStream({ message: message('one two three') }));
    assert(events[0].kind === 'task', `first event ${events[0].kind}`);
    task = events[0];
    const text = events.filter((e) => e.kind === 'artifact-update').map((e) => texts(e.artifact.parts)).join('');
    assert(text === 'Echo: one two three', `text ${text}`);
    const last = events[events.length - 1];
    assert(last.kind === 'status-update' && last.status.state === 'completed' && last.final, `last ${JSON.stringify(last)}`);
  });

  await check(`${transport} get with historyLength`, async () => {
    const t = await c.getTask({ id: task.id, historyLength: 1 });
    assert(t.status.state === 'completed', `state ${t.status.state}`);
    assert(t.history.length === 1, `history ${t.history.length}`);
    assert(texts(t.artifacts[0].parts) === 'Echo: one two three', 'artifact text');
  });

  await check(`${transport} unknown task`, () => expectError(c.getTask({ id: 'no-such-task' }), /not ?found/i));
  await check(`${transport} cancel a completed task`, () => expectError(c.cancelTask({ id: task.id }), /cancel/i));
  await check(`${transport} resubscribe to a completed task`, () =>
    expectError(collect(c.resubscribeTask({ id: task.id })), /unsupported|not supported|finished|completed/i));
  await check(`${transport} mismatched context`, () =>
    expectError(c.sendMessage({ message: message('x', { taskId: task.id, contextId: 'another-context' }) }), /contextId|invalid/i));

  const slow = await client(slowURL, transport);
  await check(`${transport} resubscribe and cancel`, async () => {
    const started = await slow.sendMessage({ message: message('a b c d e f'), configuration: { blocking: false } });
    assert(started.kind === 'task', `non-blocking send gave ${JSON.stringify(started)}`);
    const sub = collect(slow.resubscribeTask({ id: started.id }));
    await new Promise((r) => setTimeout(r, 300));
    const canceled = await slow.cancelTask({ id: started.id });
    assert(canceled.status.state === 'canceled', `cancel state ${canceled.status.state}`);
    const events = await sub;
    assert(events[0].kind === 'task', `first ${events[0].kind}`);
    const last = events[events.length - 1];
    assert(last.kind === 'status-update' && last.status.state === 'canceled' && last.final, `last ${JSON.stringify(last)}`);
  });

  const appr = await client(approvalURL, transport);
  await check(`${transport} input-required round trip`, async () => {
    const waiting = await appr.sendMessage({ message: message('mail bob') });
    assert(waiting.kind === 'task' && waiting.status.state === 'input-required', `state ${JSON.stringify(waiting.status)}`);
    const data = waiting.status.message.parts.find((p) => p.kind === 'data');
    assert(data?.data?.type === 'human_approval', `input request ${JSON.stringify(waiting.status.message)}`);
    const done = await appr.sendMessage({ message: message('approve', { taskId: waiting.id, contextId: waiting.contextId }) });
    assert(done.kind === 'task' && done.status.state === 'completed', `resumed state ${JSON.stringify(done.status)}`);
    assert(texts(done.artifacts[0].parts) === 'Echo: mail bob', 'resumed text');
  });
}

finish('sdk 0.3.14');
