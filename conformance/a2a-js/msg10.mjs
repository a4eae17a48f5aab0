// Rich messages and answers with the @a2a-js/sdk 1.3.0 client over A2A 1.0
// (JSON-RPC and HTTP+JSON), against harnest serving the test worker
// backend/testdata/msg_worker.py. Usage: node msg10.mjs <workerURL>.
// Prints one line per check and exits non-zero when one fails.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { assert, check, finish } from './checks.mjs';

const [workerURL] = process.argv.slice(2);

function part(content, extra = {}) {
  return { content, metadata: undefined, filename: '', mediaType: '', ...extra };
}

function message(parts, extra = {}) {
  return {
    messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts,
    metadata: undefined, extensions: [], referenceTaskIds: [], ...extra,
  };
}

function request(msg) {
  return { tenant: '', message: msg, configuration: undefined, metadata: undefined };
}

function texts(parts) {
  return (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

function artifact(task, id) {
  return (task.artifacts ?? []).find((a) => a.artifactId === id);
}

async function client(transport) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] });
  return new ClientFactory(options).createFromUrl(workerURL);
}

async function collect(gen) {
  const out = [];
  for await (const item of gen) out.push(item.payload ?? item);
  return out;
}

for (const transport of ['JSONRPC', 'HTTP+JSON']) {
  const c = await client(transport);

  await check(`${transport} a file and a data part come back as artifacts`, async () => {
    const file = Buffer.from('plain notes\n');
    const msg = message([
      part({ $case: 'text', value: 'echo these' }),
      part({ $case: 'data', value: { n: 1 } }),
      part({ $case: 'raw', value: file }, { filename: 'notes.txt', mediaType: 'text/plain' }),
    ], { extensions: ['https://ext.example/v1'], metadata: { trace: 't-1' } });
    const task = await c.sendMessage(request(msg));
    assert(task.status?.state === TaskState.TASK_STATE_COMPLETED, `not a completed task: ${JSON.stringify(task)}`);
    const seen = artifact(task, 'message')?.parts[0]?.content?.value;
    assert(seen?.messageId === msg.messageId && seen?.extensions?.[0] === 'https://ext.example/v1' && seen?.metadata?.trace === 't-1',
      `the worker saw ${JSON.stringify(seen)}`);
    const data = artifact(task, 'part-1')?.parts[0]?.content;
    assert(data?.$case === 'data' && data.value.n === 1, `data ${JSON.stringify(data)}`);
    const back = artifact(task, 'part-2')?.parts[0];
    assert(back?.content?.$case === 'raw' && Buffer.from(back.content.value).equals(file) && back.filename === 'notes.txt',
      `file ${JSON.stringify(back)}`);
  });

  await check(`${transport} a chunked artifact streams with append and lastChunk`, async () => {
    const events = await collect(c.sendMessageStream(request(message([part({ $case: 'text', value: 'chunks please' })]))));
    const chunks = events.filter((e) => e.$case === 'artifactUpdate' && e.value.artifact.artifactId === 'story').map((e) => e.value);
    assert(chunks.length === 3, `chunks ${chunks.length}`);
    assert(!chunks[0].append && chunks[1].append && chunks[2].append && !chunks[1].lastChunk && chunks[2].lastChunk,
      `flags ${JSON.stringify(chunks.map((u) => [u.append, u.lastChunk]))}`);
    assert(chunks.map((u) => texts(u.artifact.parts)).join('') === 'one two three', 'chunk text');
  });

  for (const [input, state, text] of [
    ['reject this', TaskState.TASK_STATE_REJECTED, 'I will not do that.'],
    ['auth me', TaskState.TASK_STATE_AUTH_REQUIRED, 'Sign in to the calendar first.'],
  ]) {
    await check(`${transport} ${input}: task state ${state}`, async () => {
      const task = await c.sendMessage(request(message([part({ $case: 'text', value: input })])));
      assert(task.status?.state === state, `state ${JSON.stringify(task.status)}`);
      assert(texts(task.status.message?.parts) === text, `status message ${JSON.stringify(task.status.message)}`);
    });
  }
}

finish('msg sdk 1.3.0');
