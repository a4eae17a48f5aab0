// Drives harnest's A2A 1.0 bindings (JSON-RPC and HTTP+JSON) with the
// @a2a-js/sdk 1.3.0 client. Usage: node sdk10.mjs <plainURL> <approvalURL> <slowURL>
// (three harnest servers: plain echo, echo with an approval, echo with a
// delay). Prints one line per check and exits non-zero when one fails.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { assert, check, finish } from './checks.mjs';

const [plainURL, approvalURL, slowURL] = process.argv.slice(2);

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

function message(text, extra = {}) {
  return {
    messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts: [textPart(text)],
    metadata: undefined, extensions: [], referenceTaskIds: [], ...extra,
  };
}

function request(msg, configuration = undefined) {
  return { tenant: '', message: msg, configuration, metadata: undefined };
}

function texts(parts) {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

async function client(url, transport) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] });
  return new ClientFactory(options).createFromUrl(url);
}

async function collect(gen) {
  const out = [];
  for await (const item of gen) out.push(item.payload ?? item);
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
    const res = await c.sendMessage(request(message('hello')));
    assert(res.role === Role.ROLE_AGENT, `not an agent message: ${JSON.stringify(res)}`);
    assert(texts(res.parts) === 'Echo: hello', `text ${texts(res.parts)}`);
  });

  await check(`${transport} stream`, async () => {
    const events = await collect(c.sendMessageStream(request(message('one two three'))));
    assert(events[0].$case === 'task', `first event ${events[0].$case}`);
    task = events[0].value;
    const text = events.filter((e) => e.$case === 'artifactUpdate').map((e) => texts(e.value.artifact.parts)).join('');
    assert(text === 'Echo: one two three', `text ${text}`);
    const last = events[events.length - 1];
    assert(last.$case === 'statusUpdate' && last.value.status.state === TaskState.TASK_STATE_COMPLETED, `last ${JSON.stringify(last)}`);
  });

  await check(`${transport} get with historyLength`, async () => {
    const t = await c.getTask({ tenant: '', id: task.id, historyLength: 1 });
    assert(t.status.state === TaskState.TASK_STATE_COMPLETED, `state ${t.status.state}`);
    assert(t.history.length === 1, `history ${t.history.length}`);
    assert(texts(t.artifacts[0].parts) === 'Echo: one two three', 'artifact text');
  });

  await check(`${transport} list`, async () => {
    const l = await c.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_COMPLETED, pageToken: '', includeArtifacts: false });
    assert(l.tasks.length === 1 && l.tasks[0].id === task.id, `tasks ${JSON.stringify(l.tasks.map((t) => t.id))}`);
    assert(l.nextPageToken === '' && l.totalSize === 1, `paging ${l.nextPageToken} ${l.totalSize}`);
  });

  await check(`${transport} unknown task`, () => expectError(c.getTask({ tenant: '', id: 'no-such-task' }), /not ?found/i));
  await check(`${transport} cancel a completed task`, () => expectError(c.cancelTask({ tenant: '', id: task.id, metadata: undefined }), /cancel/i));
  await check(`${transport} subscribe to a completed task`, () =>
    expectError(collect(c.resubscribeTask({ tenant: '', id: task.id })), /unsupported|not supported|finished|completed/i));
  await check(`${transport} mismatched context`, () =>
    expectError(c.sendMessage(request(message('x', { taskId: task.id, contextId: 'another-context' }))), /contextId|invalid/i));

  const slow = await client(slowURL, transport);
  await check(`${transport} resubscribe and cancel`, async () => {
    const started = await slow.sendMessage(request(message('a b c d e f'), { acceptedOutputModes: [], historyLength: undefined, returnImmediately: true, taskPushNotificationConfig: undefined }));
    assert(started.status, `returnImmediately gave ${JSON.stringify(started)}`);
    const sub = collect(slow.resubscribeTask({ tenant: '', id: started.id }));
    await new Promise((r) => setTimeout(r, 300));
    const canceled = await slow.cancelTask({ tenant: '', id: started.id, metadata: undefined });
    assert(canceled.status.state === TaskState.TASK_STATE_CANCELED, `cancel state ${canceled.status.state}`);
    const events = await sub;
    assert(events[0].$case === 'task', `first ${events[0].$case}`);
    const last = events[events.length - 1];
    assert(last.$case === 'statusUpdate' && last.value.status.state === TaskState.TASK_STATE_CANCELED, `last ${JSON.stringify(last)}`);
  });

  const appr = await client(approvalURL, transport);
  await check(`${transport} input-required round trip`, async () => {
    const waiting = await appr.sendMessage(request(message('mail bob')));
    assert(waiting.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED, `state ${JSON.stringify(waiting.status)}`);
    const done = await appr.sendMessage(request(message('approve', { taskId: waiting.id, contextId: waiting.contextId })));
    assert(done.status?.state === TaskState.TASK_STATE_COMPLETED, `resumed state ${JSON.stringify(done.status)}`);
    assert(texts(done.artifacts[0].parts) === 'Echo: mail bob', 'resumed text');
  });
}

finish('sdk 1.3.0');
