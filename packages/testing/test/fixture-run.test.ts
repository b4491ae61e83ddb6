import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineFixture, FixtureError, runFixture } from '@thresher/testing';
import { describe, expect, it } from 'vitest';

const orderDir = fileURLToPath(new URL('../../../fixtures/order-fulfilment/', import.meta.url));
const order = (spec: Omit<Parameters<typeof defineFixture>[0], 'dir' | 'models'>) =>
  defineFixture({ dir: orderDir, models: './order-fulfilment.bpmn', handlersModule: './handlers.mjs', ...spec });

/** A handlers module written for one test, next to nothing else. */
function handlersModule(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'thresher-fixture-run-'));
  const file = join(dir, 'handlers.mjs');
  writeFileSync(file, source);
  return file;
}

describe('runFixture', () => {
  it('should give the same persist points and the same end on every run', async () => {
    const fixture = order({ start: { variables: { orderId: 'R-1', total: 40 } }, kill: 'none' });
    const first = await runFixture(fixture);
    const second = await runFixture(fixture);
    expect(first.persistPoints).toBeGreaterThan(5);
    expect(second.persistPoints).toBe(first.persistPoints);
    expect(second.baseline).toEqual(first.baseline);
  });

  it('should run hours of scripted delay and retry backoff on the virtual clock', async () => {
    const report = await runFixture(
      order({
        start: { variables: { orderId: 'R-2', total: 40 } },
        handlers: { 'reserve-stock': { delay: 'PT6H', result: { reserved: true } } },
        moves: [{ advance: 'PT1H' }, { wait: 'ended' }],
        kill: [1, 3],
        expect: { status: 'completed', variables: { reserved: true } },
      }),
    );
    expect(report.expectationFailures).toEqual([]);
    expect(report.failures).toEqual([]);
    expect(report.tried).toEqual([1, 3]);
  });

  it('should report the first differing field when a killed run ends differently', async () => {
    // handlers that are not deterministic: a repeated in-flight call returns another value
    const module = handlersModule(`
      import real from '${orderDir}handlers.mjs';
      let calls = 0;
      export default { ...real, 'validate-order': async (job) => ({ ...(await real['validate-order'](job)), stamp: ++calls }) };
    `);
    const report = await runFixture(
      defineFixture({
        dir: orderDir,
        models: './order-fulfilment.bpmn',
        handlersModule: module,
        start: { variables: { orderId: 'R-3', total: 40 } },
      }),
    );
    expect(report.ok).toBe(false);
    expect(report.failures[0]).toMatchObject({ killAt: 1, field: 'variables.stamp', expected: 1, actual: 2 });
  });

  it('should refuse a move the process never accepts, naming the fixture and the move', async () => {
    const fixture = order({
      start: { variables: { orderId: 'R-4', total: 40 } },
      moves: [{ complete: 'approve', variables: { approved: true } }],
      kill: 'none',
    });
    const run = runFixture(fixture);
    await expect(run).rejects.toThrow(FixtureError);
    await expect(run).rejects.toThrow(/moves\[0\]: complete: no open user task "approve"; it has completed/);
  });

  it('should stop a wait on a handler that never answers with a clear error', async () => {
    const module = handlersModule(`
      import real from '${orderDir}handlers.mjs';
      export default { ...real, 'notify-customer': () => new Promise(() => {}) };
    `);
    const run = runFixture(
      defineFixture({
        dir: orderDir,
        models: './order-fulfilment.bpmn',
        handlersModule: module,
        start: { variables: { orderId: 'R-5', total: 40 } },
        kill: 'none',
      }),
    );
    await expect(run).rejects.toThrow(/a handler has not answered and nothing is due/);
  });

  it('should report a kill point beyond the run as a failure', async () => {
    const report = await runFixture(order({ start: { variables: { orderId: 'R-6', total: 40 } }, kill: [999] }));
    expect(report.failures).toEqual([
      { killAt: 999, field: 'kill', expected: `a persist point up to ${report.persistPoints}`, actual: 999 },
    ]);
  });
});
