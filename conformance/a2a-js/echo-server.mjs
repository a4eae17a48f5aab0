// An @a2a-js/sdk 1.3.0 echo agent for BenchmarkSendMessage in ../a2a-go:
// AgentExecutor + DefaultRequestHandler (in-memory task store) behind the
// SDK's express JSON-RPC handler at /rpc. Every message is answered with a
// Message "Echo: <text>". Usage: node echo-server.mjs <port>; listens on
// 127.0.0.1 only and prints "listening <port>" when ready (port 0 picks a
// free port, and the line gives the one bound).
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Role } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node echo-server.mjs <port>');
  process.exit(2);
}

const card = {
  name: 'js-echo',
  description: 'Echoes every message.',
  supportedInterfaces: [
    { url: `http://127.0.0.1:${port}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
  ],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
};

const executor = {
  async execute(ctx, bus) {
    let text = '';
    for (const p of ctx.userMessage.parts) {
      if (p.content?.$case === 'text') text += p.content.value;
    }
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: '',
        role: Role.ROLE_AGENT,
        parts: [{ content: { $case: 'text', value: `Echo: ${text}` }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    bus.finished();
  },
  async cancelTask() {},
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(port, '127.0.0.1', () => {
  const bound = server.address().port;
  card.supportedInterfaces[0].url = `http://127.0.0.1:${bound}/rpc`;
  console.log(`listening ${bound}`);
});
server.on('error', (e) => {
  console.error(e);
  process.exit(1);
});
