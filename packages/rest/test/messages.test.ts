import { SearchProjection } from '@thresher/rest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKey } from '../src/keys.js';
import { type Api, problemOf, serveApi } from './harness.js';
import { resources } from './models.js';

/** `wait` waits at a message catch event keyed by `orderId`; `signalled` starts on the signal `go`. */
const MODELS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs-msg" targetNamespace="t">
  <bpmn:message id="paid" name="paid">
    <bpmn:extensionElements><zeebe:subscription correlationKey="=orderId" /></bpmn:extensionElements>
  </bpmn:message>
  <bpmn:signal id="go" name="go" />
  <bpmn:process id="wait" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="catch" />
    <bpmn:intermediateCatchEvent id="catch"><bpmn:messageEventDefinition messageRef="paid" /></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="catch" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
  <bpmn:process id="signalled" isExecutable="true">
    <bpmn:startEvent id="ss"><bpmn:signalEventDefinition signalRef="go" /></bpmn:startEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="ss" targetRef="se" />
    <bpmn:endEvent id="se" />
  </bpmn:process>
</bpmn:definitions>`;

let api: Api;
beforeEach(async () => {
  api = await serveApi();
  await fetch(`${api.server.url}/deployments`, { method: 'POST', body: resources({ 'msg.bpmn': MODELS }) });
});
afterEach(async () => {
  await api.close();
  expect(api.failures).toEqual([]);
});

async function startWaiting(orderId: string): Promise<string> {
  const response = await api.call('POST', '/process-instances', {
    processDefinitionId: 'wait',
    variables: { orderId },
  });
  return ((await response.json()) as { processInstanceKey: string }).processInstanceKey;
}

async function stateOf(processInstanceKey: string): Promise<string> {
  const response = await api.call('GET', `/process-instances/${processInstanceKey}`);
  return ((await response.json()) as { state: string }).state;
}

describe('POST /messages/correlation', () => {
  it('should correlate to the waiting instance and answer its key', async () => {
    const instanceKey = await startWaiting('o-1');

    const response = await api.call('POST', '/messages/correlation', {
      name: 'paid',
      correlationKey: 'o-1',
      variables: { amount: 3 },
    });

    expect(response.status).toBe(200);
    const body = (await response.json()) as { messageKey: string; processInstanceKey: string; tenantId: string };
    expect(body).toEqual({ tenantId: '<default>', messageKey: expect.any(String), processInstanceKey: instanceKey });
    expect(readKey(body.messageKey, 'key').kind).toBe('passing');
    expect(await stateOf(instanceKey)).toBe('COMPLETED');
  });

  it('should answer 404 when nothing waits for the message, keeping nothing', async () => {
    const instanceKey = await startWaiting('o-1');

    const response = await api.call('POST', '/messages/correlation', { name: 'paid', correlationKey: 'o-2' });

    expect(await problemOf(response)).toMatchObject({ status: 404, title: 'NOT_FOUND' });
    await startWaiting('o-2');
    expect(await stateOf(instanceKey)).toBe('ACTIVE');
    expect((await api.engine.instances({ status: 'running' })).length).toBe(2);
  });
});

describe('POST /messages/publication', () => {
  it('should buffer a message for its time to live, for an instance that starts waiting for it', async () => {
    const published = await api.call('POST', '/messages/publication', {
      name: 'paid',
      correlationKey: 'o-9',
      timeToLive: 60_000,
      messageId: 'm-1',
    });
    expect(published.status).toBe(200);
    expect(await published.json()).toEqual({ tenantId: '<default>', messageKey: expect.stringMatching(/^\d+$/) });

    const instanceKey = await startWaiting('o-9');
    await api.engine.settled((await api.engine.instances())[0]!.instanceId);

    expect(await stateOf(instanceKey)).toBe('COMPLETED');
  });

  it('should refuse a message published again with the messageId of one still buffered with a 409', async () => {
    const publish = () =>
      api.call('POST', '/messages/publication', {
        name: 'paid',
        correlationKey: 'o-7',
        timeToLive: 60_000,
        messageId: 'm-7',
      });
    expect((await publish()).status).toBe(200);
    const again = await problemOf(await publish());
    expect(again).toMatchObject({ status: 409, title: 'ALREADY_EXISTS', detail: expect.stringContaining('m-7') });

    const instanceKey = await startWaiting('o-7');
    await api.engine.settled((await api.engine.instances())[0]!.instanceId);
    expect(await stateOf(instanceKey)).toBe('COMPLETED');
  });

  it('should refuse a bad publication with a 400 naming the field', async () => {
    for (const [body, field] of [
      [{ correlationKey: 'o-1' }, '$.name'],
      [{ name: 'paid', timeToLive: -1 }, '$.timeToLive'],
      [{ name: 'paid', variables: 'x' }, '$.variables'],
      [{ name: 'paid', tenantId: 'acme' }, '$.tenantId'],
    ] as const) {
      const problem = await problemOf(await api.call('POST', '/messages/publication', body));
      expect(problem.status).toBe(400);
      expect(problem.detail).toContain(field);
    }
  });
});

describe('POST /correlated-message-subscriptions/search', () => {
  it('should find each message an element took, under the key its publication answered', async () => {
    const instanceKey = await startWaiting('o-3');
    await api.engine.settled((await api.engine.instances())[0]!.instanceId);
    // The projection sees the subscription open before it takes the message.
    await api.projection!.caughtUp();
    const published = await api.call('POST', '/messages/publication', { name: 'paid', correlationKey: 'o-3' });
    const { messageKey } = (await published.json()) as { messageKey: string };
    await api.engine.settled((await api.engine.instances())[0]!.instanceId);
    await api.projection!.caughtUp();

    const found = await api.call('POST', '/correlated-message-subscriptions/search', { filter: { messageKey } });
    const { items } = (await found.json()) as { items: Record<string, unknown>[] };
    const subscriptions = await api.call('POST', '/message-subscriptions/search', {
      filter: { processInstanceKey: instanceKey },
    });
    const [subscription] = ((await subscriptions.json()) as { items: Record<string, unknown>[] }).items;
    expect(items).toEqual([
      {
        correlationKey: 'o-3',
        correlationTime: expect.any(String),
        elementId: 'catch',
        elementInstanceKey: subscription!.elementInstanceKey,
        messageKey,
        messageName: 'paid',
        partitionId: 1,
        processDefinitionId: 'wait',
        processDefinitionKey: expect.stringMatching(/^\d+$/),
        processInstanceKey: instanceKey,
        subscriptionKey: subscription!.messageSubscriptionKey,
        tenantId: '<default>',
      },
    ]);
    expect(subscription).toMatchObject({ messageSubscriptionState: 'CORRELATED' });
  });
});

describe('a subscription opened and taken between two reads of the log', () => {
  it('should be kept, correlated, with the correlation naming it as the subscription that took the message', async () => {
    await api.projection!.close();
    const instanceKey = await startWaiting('o-9');
    await api.engine.settled((await api.engine.instances())[0]!.instanceId);
    await api.call('POST', '/messages/publication', { name: 'paid', correlationKey: 'o-9' });
    await api.engine.settled((await api.engine.instances())[0]!.instanceId);
    // Read from where the first one stopped: the subscription's opening and its message in one batch.
    const later = new SearchProjection(api.engine, api.repository);
    await later.caughtUp();
    await later.close();

    const subscriptions = await api.call('POST', '/message-subscriptions/search', {
      filter: { processInstanceKey: instanceKey },
    });
    const correlated = await api.call('POST', '/correlated-message-subscriptions/search', {
      filter: { processInstanceKey: instanceKey },
    });
    const { items } = (await subscriptions.json()) as { items: Record<string, unknown>[] };
    const taken = ((await correlated.json()) as { items: Record<string, unknown>[] }).items;
    expect(items).toEqual([
      expect.objectContaining({
        elementId: 'catch',
        messageName: 'paid',
        correlationKey: 'o-9',
        messageSubscriptionState: 'CORRELATED',
        elementInstanceKey: expect.stringMatching(/^\d+$/),
      }),
    ]);
    expect(taken).toEqual([
      expect.objectContaining({
        subscriptionKey: items[0]!.messageSubscriptionKey,
        elementInstanceKey: items[0]!.elementInstanceKey,
      }),
    ]);
  });
});

describe('POST /signals/broadcast', () => {
  it('should start every process with a signal start event of its name', async () => {
    const response = await api.call('POST', '/signals/broadcast', { signalName: 'go', variables: { x: 1 } });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ tenantId: '<default>', signalKey: expect.stringMatching(/^\d+$/) });
    const started = await api.engine.instances({ processId: 'signalled' });
    expect(started).toHaveLength(1);
    expect((await api.engine.instance(started[0]!.instanceId))?.variables).toEqual({ x: 1 });
    expect((await problemOf(await api.call('POST', '/signals/broadcast', {}))).detail).toContain('$.signalName');
  });
});
