// Drives the extended card and the wire fixes of harnest issue 15 with the
// @a2a-js/sdk 1.3.0 client, on JSON-RPC and HTTP+JSON. Usage:
// node wire10.mjs <securedURL> <token> <plainURL> (a harnest server with a
// bearer token and agent-card.extended.yaml, and a plain echo server).
// Prints one line per check and exits non-zero when one fails.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { Role } from '@a2a-js/sdk';
import { assert, check, finish } from './checks.mjs';

const [securedURL, token, plainURL] = process.argv.slice(2);

function message(text, extra = {}) {
  return {
    messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined, extensions: [], referenceTaskIds: [], ...extra,
  };
}

async function client(url, transport) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] });
  return new ClientFactory(options).createFromUrl(url);
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

async function drain(gen) {
  for await (const _ of gen) { /* the error, if any, is thrown here */ }
}

const auth = { serviceParameters: { Authorization: `Bearer ${token}` } };

for (const transport of ['JSONRPC', 'HTTP+JSON']) {
  const secured = await client(securedURL, transport);
  await check(`${transport} extended card with the token`, async () => {
    const card = await secured.getAgentCard(auth);
    assert(card.capabilities?.extendedAgentCard === true, 'capability not declared');
    assert(card.skills.map((s) => s.id).join() === 'echo,premium', `skills ${card.skills.map((s) => s.id)}`);
  });
  await check(`${transport} extended card without the token`, () =>
    expectError(secured.getAgentCard({ serviceParameters: { Authorization: 'Bearer wrong' } }), /401|auth|unauthori[sz]ed/i));

  const plain = await client(plainURL, transport);
  await check(`${transport} stream to an unknown task reports the error`, () =>
    expectError(drain(plain.sendMessageStream({ tenant: '', message: message('x', { taskId: 'no-such-task' }), configuration: undefined, metadata: undefined })), /not ?found/i));
  await check(`${transport} stream of an invalid message reports the error`, () =>
    expectError(drain(plain.sendMessageStream({ tenant: '', message: { ...message('x'), parts: [] }, configuration: undefined, metadata: undefined })), /part|invalid/i));
}

finish('wire 1.3.0');
