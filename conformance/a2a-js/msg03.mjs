// Rich messages and answers with the @a2a-js/sdk 0.3.14 client over A2A 0.3
// (JSON-RPC and HTTP+JSON), against harnest serving the test worker
// backend/testdata/msg_worker.py. Usage: node msg03.mjs <workerURL>.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from 'a2a-js-sdk-03/client';
import { assert, check, finish } from './checks.mjs';

const [workerURL] = process.argv.slice(2);

function message(parts, extra = {}) {
  return { kind: 'message', messageId: randomUUID(), role: 'user', parts, ...extra };
}

function texts(parts) {
  return (parts ?? []).filter((p) => p.kind === 'text').map((p) => p.text).join('');
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
  for await (const item of gen) out.push(item);
  return out;
}

for (const transport of ['JSONRPC', 'HTTP+JSON']) {
  const c = await client(transport);

  await check(`${transport} a file and a data part come back as artifacts`, async () => {
    const file = Buffer.from('plain notes\n');
    const msg = message([
      { kind: 'text', text: 'echo these' },
      { kind: 'data', data: { n: 1 } },
      { kind: 'file', file: { name: 'notes.txt', mimeType: 'text/plain', bytes: file.toString('base64') } },
      { kind: 'file', file: { name: 'r.pdf', mimeType: 'application/pdf', uri: 'https://files.example/r.pdf' } },
    ], { extensions: ['https://ext.example/v1'], metadata: { trace: 't-1' }, referenceTaskIds: ['task-earlier'] });
    const task = await c.sendMessage({ message: msg });
    assert(task.kind === 'task' && task.status.state === 'completed', `not a completed task: ${JSON.stringify(task)}`);
    const seen = artifact(task, 'message')?.parts[0]?.data;
    // The 0.3 proto (HTTP+JSON) has no referenceTaskIds: only JSON-RPC carries them.
    const refs = transport === 'JSONRPC' ? seen?.referenceTaskIds?.[0] === 'task-earlier' : true;
    assert(seen?.messageId === msg.messageId && refs && seen?.extensions?.[0] === 'https://ext.example/v1' && seen?.metadata?.trace === 't-1',
      `the worker saw ${JSON.stringify(seen)}`);
    const data = artifact(task, 'part-1')?.parts[0];
    assert(data?.kind === 'data' && data.data.n === 1, `data ${JSON.stringify(data)}`);
    const back = artifact(task, 'part-2')?.parts[0];
    // The 0.3 proto's FilePart has no name either: JSON-RPC carries it.
    const named = transport === 'JSONRPC' ? back?.file?.name === 'notes.txt' : true;
    assert(back?.kind === 'file' && Buffer.from(back.file.bytes, 'base64').equals(file) && named, `file ${JSON.stringify(back)}`);
    const url = artifact(task, 'part-3')?.parts[0];
    assert(url?.file?.uri === 'https://files.example/r.pdf', `url ${JSON.stringify(url)}`);
  });

  await check(`${transport} a chunked artifact streams with append and lastChunk`, async () => {
    const events = await collect(c.sendMessageStream({ message: message([{ kind: 'text', text: 'chunks please' }]) }));
    const chunks = events.filter((e) => e.kind === 'artifact-update' && e.artifact.artifactId === 'story');
    assert(chunks.length === 3, `chunks ${chunks.length}`);
    // 0.3.14's HTTP+JSON client drops append when it converts the proto
    // event (its FromProto.taskArtifactUpdateEvent), so only JSON-RPC shows it.
    const appends = transport === 'JSONRPC' ? !chunks[0].append && chunks[1].append && chunks[2].append : true;
    assert(appends && !chunks[1].lastChunk && chunks[2].lastChunk,
      `flags ${JSON.stringify(chunks.map((u) => [u.append, u.lastChunk]))}`);
    assert(chunks.map((u) => texts(u.artifact.parts)).join('') === 'one two three', 'chunk text');
  });

  for (const [input, state, text] of [
    ['reject this', 'rejected', 'I will not do that.'],
    ['auth me', 'auth-required', 'Sign in to the calendar first.'],
  ]) {
    await check(`${transport} ${input}: task state ${state}`, async () => {
      const task = await c.sendMessage({ message: message([{ kind: 'text', text: input }]) });
      assert(task.kind === 'task' && task.status.state === state, `state ${JSON.stringify(task.status)}`);
      assert(texts(task.status.message?.parts) === text, `status message ${JSON.stringify(task.status.message)}`);
    });
    await check(`${transport} ${input} streamed ends ${state}`, async () => {
      const events = await collect(c.sendMessageStream({ message: message([{ kind: 'text', text: input }]) }));
      const last = events[events.length - 1];
      assert(last.kind === 'status-update' && last.status.state === state && last.final, `last ${JSON.stringify(last)}`);
    });
  }
}

finish('msg sdk 0.3.14');
