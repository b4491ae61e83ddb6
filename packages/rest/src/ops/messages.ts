/**
 * Messages and signals: a published message correlates now or waits `timeToLive` in the store's buffer; a
 * correlation correlates now or is a 404; a broadcast signal reaches every instance waiting and starts every
 * process with a signal start event of its name.
 */
import { randomUUID } from 'node:crypto';
import { messageKey, passingKey } from '../keys.js';
import type { Operation } from '../operation.js';
import { Problem, ProblemKind } from '../problem.js';
import { readBroadcast, readCorrelation, readPublication } from '../schemas/messages.js';
import { DEFAULT_TENANT, readTenant } from '../tenants.js';

/** `POST /messages/publication`. */
const publishMessage: Operation = async ({ engine, json }) => {
  const message = readPublication(await json());
  readTenant(message.tenantId, '$.tenantId');
  // Zeebe's empty key is the key of messages that start processes, which wait with none.
  const correlationKey = message.correlationKey || null;
  // Every publication gets an id, so its key names its correlations (`/correlated-message-subscriptions/search`).
  const messageId = message.messageId || randomUUID();
  await engine.correlateMessage(message.name, {
    correlationKey,
    variables: message.variables ?? {},
    timeToLive: message.timeToLive ?? 0,
    messageId,
  });
  return {
    status: 200,
    body: { tenantId: DEFAULT_TENANT, messageKey: messageKey(message.name, correlationKey, messageId) },
  };
};

/** `POST /messages/correlation`: correlated now, with the instance that took it, or a 404. */
const correlateMessage: Operation = async ({ engine, keys, json }) => {
  const message = readCorrelation(await json());
  readTenant(message.tenantId, '$.tenantId');
  const correlationKey = message.correlationKey || null;
  const messageId = randomUUID();
  const variables = message.variables ?? {};
  const result = await engine.correlateMessage(message.name, { correlationKey, variables, messageId });
  if (!result.correlated || result.instanceId === null) {
    const key = correlationKey === null ? 'no correlation key' : `correlation key "${correlationKey}"`;
    throw new Problem(
      ProblemKind.NotFound,
      `no instance waits for message "${message.name}" with ${key}, and no process starts on it`,
    );
  }
  return {
    status: 200,
    body: {
      tenantId: DEFAULT_TENANT,
      messageKey: messageKey(message.name, correlationKey, messageId),
      processInstanceKey: await keys.keyOf(result.instanceId),
    },
  };
};

/** `POST /signals/broadcast`. */
const broadcastSignal: Operation = async ({ engine, json }) => {
  const signal = readBroadcast(await json());
  readTenant(signal.tenantId, '$.tenantId');
  await engine.broadcastSignal(signal.signalName, { variables: signal.variables ?? {} });
  return { status: 200, body: { tenantId: DEFAULT_TENANT, signalKey: passingKey() } };
};

export const messageOperations = {
  publishMessage,
  correlateMessage,
  broadcastSignal,
} satisfies Record<string, Operation>;
