// Push notification configs with the @a2a-js/sdk clients: 1.3.0 over A2A
// 1.0 and 0.3.14 over 0.3, each on JSON-RPC and HTTP+JSON. Usage:
// node push.mjs <serverURL> <receiverURL>. Each run sends a message with a
// push config to <receiverURL>/js/<version>/<transport>, then makes, reads,
// lists and deletes another config; the Go test (conformance/a2a-go
// push_node_test.go) checks what the receiver got. Prints one line per check
// and exits non-zero when one fails.
import { randomUUID } from 'node:crypto';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { ClientFactory as ClientFactory03, ClientFactoryOptions as ClientFactoryOptions03 } from 'a2a-js-sdk-03/client';
import { Role, TaskState } from '@a2a-js/sdk';
import { assert, check, finish } from './checks.mjs';

const [serverURL, receiverURL] = process.argv.slice(2);

function message10(text) {
  return {
    messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined, extensions: [], referenceTaskIds: [],
  };
}

function config10(taskId, id, url, auth = undefined) {
  return { tenant: '', id, taskId, url, token: 'tok-js', authentication: auth };
}

for (const transport of ['JSONRPC', 'HTTP+JSON']) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] });
  const c = await new ClientFactory(options).createFromUrl(serverURL);
  const hook = `${receiverURL}/js/1.0/${transport}`;
  let task;
  await check(`1.0 ${transport} send with a push config`, async () => {
    task = await c.sendMessage({
      tenant: '', message: message10('push js'), metadata: undefined,
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: config10('', '', hook), returnImmediately: false },
    });
    assert(task.status?.state === TaskState.TASK_STATE_COMPLETED, `not the completed task: ${JSON.stringify(task)}`);
  });
  await check(`1.0 ${transport} create, get, list, delete`, async () => {
    const made = await c.createTaskPushNotificationConfig(config10(task.id, 'js-more', `${hook}/more`, { scheme: 'Bearer', credentials: 'cred-js' }));
    assert(made.id === 'js-more' && made.taskId === task.id && made.authentication?.scheme === 'Bearer', `create ${JSON.stringify(made)}`);
    const got = await c.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'js-more' });
    assert(got.url === `${hook}/more`, `get ${JSON.stringify(got)}`);
    const list = await c.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    assert(list.configs.length === 2, `list ${JSON.stringify(list)}`);
    await c.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'js-more' });
    const after = await c.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' });
    assert(after.configs.length === 1, `list after delete ${JSON.stringify(after)}`);
  });
}

for (const transport of ['JSONRPC', 'HTTP+JSON']) {
  const options = ClientFactoryOptions03.createFrom(ClientFactoryOptions03.default, { preferredTransports: [transport] });
  const c = await new ClientFactory03(options).createFromUrl(serverURL);
  const hook = `${receiverURL}/js/0.3/${transport}`;
  let task;
  await check(`0.3 ${transport} send with a push config`, async () => {
    task = await c.sendMessage({
      message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'push js 0.3' }] },
      configuration: { blocking: true, pushNotificationConfig: { url: hook, token: 'tok-js' } },
    });
    assert(task.kind === 'task' && task.status.state === 'completed', `not the completed task: ${JSON.stringify(task)}`);
  });
  await check(`0.3 ${transport} set, get, list, delete`, async () => {
    const set = await c.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: 'js-more', url: `${hook}/more` } });
    assert(set.taskId === task.id && set.pushNotificationConfig.id === 'js-more', `set ${JSON.stringify(set)}`);
    const got = await c.getTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'js-more' });
    assert(got.pushNotificationConfig.url === `${hook}/more`, `get ${JSON.stringify(got)}`);
    const list = await c.listTaskPushNotificationConfig({ id: task.id });
    assert(list.length === 2, `list ${JSON.stringify(list)}`);
    await c.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'js-more' });
    const after = await c.listTaskPushNotificationConfig({ id: task.id });
    assert(after.length === 1, `list after delete ${JSON.stringify(after)}`);
  });
}

finish('push');
