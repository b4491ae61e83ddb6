import { describe, expect, it } from 'vitest';
import type { Handlers } from '../src/api-types.js';
import { type KillScenario, runKilledAt, runUninterrupted } from '../src/testing/index.js';
import { bpmn, chain, ext, flow } from './fixtures/bpmn/xml.js';
import { orderHandlers, orderXml } from './fixtures/order.js';

const order =
  (name: string, variables: Record<string, unknown>, approved = true): (() => KillScenario) =>
  () => ({
    name,
    models: [orderXml],
    processId: 'order-fulfilment',
    variables,
    handlers: orderHandlers,
    answers: { approve: { approved } },
  });

/** A handler that fails the first `times` calls of each invocation, then succeeds: retries under kills. */
function flaky(times: number): Handlers {
  const failures = new Map<string, number>();
  return {
    flaky: (job) => {
      const seen = failures.get(job.idempotencyKey) ?? 0;
      if (seen < times) {
        failures.set(job.idempotencyKey, seen + 1);
        throw new Error(`transient failure ${seen + 1}`);
      }
      return { done: true };
    },
    step: (job) => ({ [`${job.elementId}Ran`]: true }),
  };
}

const retries = (): KillScenario => ({
  name: 'retries',
  models: [
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:serviceTask id="a">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
      <bpmn:serviceTask id="x">${ext('<zeebe:taskDefinition type="flaky" retries="3" />')}</bpmn:serviceTask>
      <bpmn:serviceTask id="b">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
      <bpmn:endEvent id="end" />
      ${chain('start', 'a', 'x', 'b', 'end')}`),
  ],
  processId: 'p',
  handlers: flaky(2),
});

const nested = (): KillScenario => ({
  name: 'sub-process with a parallel fork and an inclusive join waiting on a user task',
  models: [
    bpmn(`<bpmn:startEvent id="start" />
      <bpmn:subProcess id="sub">
        ${ext('<zeebe:ioMapping><zeebe:input source="=n" target="local" /><zeebe:output source="=local * 10" target="fromSub" /></zeebe:ioMapping>')}
        <bpmn:startEvent id="sub-start" />
        <bpmn:parallelGateway id="fork" />
        <bpmn:serviceTask id="left">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
        <bpmn:serviceTask id="right">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
        <bpmn:parallelGateway id="join" />
        <bpmn:endEvent id="sub-end" />
        ${chain('sub-start', 'fork')}
        ${flow('f1', 'fork', 'left')}${flow('f2', 'fork', 'right')}
        ${flow('f3', 'left', 'join')}${flow('f4', 'right', 'join')}
        ${chain('join', 'sub-end')}
      </bpmn:subProcess>
      <bpmn:inclusiveGateway id="split" />
      <bpmn:userTask id="review" />
      <bpmn:serviceTask id="audit">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
      <bpmn:serviceTask id="skipped">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
      <bpmn:inclusiveGateway id="merge" />
      <bpmn:serviceTask id="after">${ext('<zeebe:taskDefinition type="step" />')}</bpmn:serviceTask>
      <bpmn:endEvent id="end" />
      ${chain('start', 'sub', 'split')}
      ${flow('g1', 'split', 'review', '=fromSub &gt; 5')}
      ${flow('g2', 'split', 'audit', '=true')}
      ${flow('g3', 'split', 'skipped', '=false')}
      ${flow('g4', 'review', 'merge')}${flow('g5', 'audit', 'merge')}${flow('g6', 'skipped', 'merge')}
      ${chain('merge', 'after', 'end')}`),
  ],
  processId: 'p',
  variables: { n: 3 },
  handlers: flaky(0),
  answers: { review: { reviewed: 'yes' } },
});

const scenarios: Array<() => KillScenario> = [
  order('order needing approval, express and gift', { orderId: 'A-1', total: 120, express: true, gift: true }),
  order('order below the approval limit, standard shipping', { orderId: 'B-2', total: 40 }),
  order('order rejected at approval (terminate end)', { orderId: 'C-3', total: 500 }, false),
  retries,
  nested,
];

describe.each(scenarios.map((make) => [make().name, make] as const))('kill and resume: %s', (_, make) => {
  it('should reach the same end from a kill at every persist point, running no completed step twice', async () => {
    const baseline = await runUninterrupted(make());
    expect(baseline.persistPoints).toBeGreaterThan(2);
    for (let killAt = 1; killAt <= baseline.persistPoints; killAt++) {
      const killed = await runKilledAt(make(), killAt);
      expect({ killAt, end: killed.end }).toEqual({ killAt, end: baseline.end });
      expect({ killAt, rerun: killed.rerunAfterDurable }).toEqual({ killAt, rerun: [] });
      for (const [step, count] of killed.calls) {
        // At-least-once: only a step in flight at the kill may run one more time.
        const expected = baseline.calls.get(step) ?? 0;
        expect({ killAt, step, count }).toEqual({ killAt, step, count: expect.toBeOneOf([expected, expected + 1]) });
      }
    }
  });
});

describe('the uninterrupted baselines', () => {
  it('should complete an approved order with every handler run once', async () => {
    const run = await runUninterrupted(scenarios[0]!());
    expect(run.end.status).toBe('completed');
    expect(run.end.variables).toMatchObject({
      trackingNumber: 'TRK-A-1',
      courier: 'express',
      giftNote: 'Gift for order A-1',
    });
    expect([...run.calls.values()].every((count) => count === 1)).toBe(true);
  });

  it('should terminate a rejected order without shipping it', async () => {
    const run = await runUninterrupted(scenarios[2]!());
    expect(run.end.status).toBe('terminated');
    expect(run.end.completed).not.toContain('/|notify');
  });

  it('should retry a flaky handler under one idempotency key and complete', async () => {
    const run = await runUninterrupted(retries());
    expect(run.end.status).toBe('completed');
    expect(run.end.variables).toMatchObject({ done: true });
    expect(run.calls.get('flaky|x')).toBe(3);
  });

  it('should join the inclusive branches only once the user task is done', async () => {
    const run = await runUninterrupted(nested());
    expect(run.end.variables).toMatchObject({ fromSub: 30, reviewed: 'yes', afterRan: true });
    expect(run.end.variables).not.toHaveProperty('local');
    expect(run.end.completed.filter((entry) => entry === '/|after')).toHaveLength(1);
    expect(run.end.completed).not.toContain('/|skipped');
  });
});
