import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FixtureError, loadFixture, runFixture } from '@thresher/testing';
import { describe, expect, it } from 'vitest';

/**
 * Every `expect` form of the fixture format, each once holding and once broken: a broken one names the
 * fixture file, the line, the field, what was expected and what was observed.
 */
const fixturesDir = fileURLToPath(new URL('../../../fixtures/', import.meta.url));
const ORDER = join(fixturesDir, 'order-fulfilment/order-fulfilment.bpmn');
const ORDER_HANDLERS = join(fixturesDir, 'order-fulfilment/handlers.mjs');
const MESSAGES = join(fixturesDir, 'events/messages.bpmn');
const dir = mkdtempSync(join(tmpdir(), 'thresher-fixture-expect-'));
let count = 0;

/** A fixture file of these lines; returns its path. */
function file(...lines: string[]): string {
  const path = join(dir, `case-${++count}.fixture.yaml`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** An order of 40 (no approval, standard courier) with the real handlers, plus these lines. */
const smallOrder = (...lines: string[]) =>
  file(
    `models: ${ORDER}`, // 1
    `handlersModule: ${ORDER_HANDLERS}`,
    'start: { variables: { orderId: S-1, total: 40 } }',
    ...lines,
  );

/** An order of 120 that waits for approval, plus these lines. */
const bigOrder = (...lines: string[]) =>
  file(
    `models: ${ORDER}`, // 1
    `handlersModule: ${ORDER_HANDLERS}`,
    'start: { variables: { orderId: B-1, total: 120 } }',
    ...lines,
  );

const SMALL_HISTORY = [
  'order-received',
  'validate',
  'needs-approval',
  'approval-merge',
  'fulfil-fork',
  'reserve-stock',
  'charge-payment',
  'fulfil-join',
  'courier-split',
  'book-standard',
  'courier-join',
  'shipping-start',
  'pack',
  'label',
  'dispatch',
  'shipping-end',
  'shipping',
  'notify',
  'done',
];

async function failuresOf(path: string, kill: 'none' | 'every' = 'none'): Promise<string[]> {
  const report = await runFixture(path, { kill: { kind: kill } });
  return [...report.expectationFailures, ...report.failures.map((failure) => failure.message ?? failure.field)];
}

/** The one failure a broken expectation gives, checked to name file, line, field, expected and observed. */
async function brokenAt(path: string, line: number, field: string, expected: string, observed: string) {
  const failures = await failuresOf(path);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toContain(`${path}:${line}: ${field}: `);
  expect(failures[0]).toContain(expected);
  expect(failures[0]).toContain(observed);
}

describe('expect.ended', () => {
  it('should hold when the run reached exactly these end events of the process', async () => {
    expect(await failuresOf(smallOrder('expect:', '  ended: [done]'), 'every')).toEqual([]);
  });

  it('should name the end the run reached when it is another', async () => {
    const path = smallOrder('expect:', '  ended: [rejected]');
    await brokenAt(path, 5, 'expect.ended', 'expected ["rejected"]', 'observed ["done"]');
  });

  it('should refuse at load an id that is not an end event of the process itself', async () => {
    const path = smallOrder('expect:', '  ended: [shipping-end]');
    await expect(loadFixture(path)).rejects.toThrow(/:5: expect\.ended\[0\]: "shipping-end" is not an end event/);
  });
});

describe('expect.history', () => {
  it('should hold when exactly these elements completed in this order', async () => {
    const path = smallOrder('expect:', `  history: [${SMALL_HISTORY.join(', ')}]`);
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should show the observed order when the exact history differs', async () => {
    const path = smallOrder('expect:', `  history: [${SMALL_HISTORY.filter((id) => id !== 'label').join(', ')}]`);
    await brokenAt(path, 5, 'expect.history', 'expected ["order-received"', '"pack","label","dispatch"');
  });

  it('should hold for a subsequence with other elements between', async () => {
    const path = smallOrder(
      'expect:',
      '  history: { elements: [validate, book-standard, notify], match: subsequence }',
    );
    expect(await failuresOf(path)).toEqual([]);
  });

  it('should name the element a subsequence misses', async () => {
    const path = smallOrder('expect:', '  history: { elements: [validate, book-express, notify], match: subsequence }');
    await brokenAt(
      path,
      5,
      'expect.history',
      '"book-express" after "validate" is missing',
      'observed ["order-received"',
    );
  });

  it('should keep to one sub-process with scope', async () => {
    const holds = smallOrder(
      'expect:',
      '  history: { elements: [shipping-start, pack, label, dispatch, shipping-end], scope: shipping }',
    );
    expect(await failuresOf(holds)).toEqual([]);
    const broken = smallOrder('expect:', '  history: { elements: [pack, dispatch], scope: shipping }');
    await brokenAt(
      broken,
      5,
      'expect.history',
      'expected ["pack","dispatch"]',
      'observed ["shipping-start","pack","label","dispatch","shipping-end"]',
    );
  });
});

describe('expect.elementRuns', () => {
  it('should count entries of elements, not handler attempts', async () => {
    const path = smallOrder(
      'handlers:',
      '  charge-payment: { fail: 1, result: { paymentId: P-1 } }',
      'expect:',
      '  elementRuns: { charge-payment: 1, approve: 0, notify: 1 }',
      '  handlerRuns: { charge-payment: 2 }',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should name the element entered another number of times', async () => {
    const path = smallOrder('expect:', '  elementRuns:', '    pack: 2');
    await brokenAt(path, 6, 'expect.elementRuns.pack', 'expected 2', 'observed 1');
  });
});

describe('expect.waits, userTasks and active', () => {
  it('should hold with nothing left once the instance ended', async () => {
    expect(await failuresOf(smallOrder('expect:', '  waits: []', '  userTasks: []', '  active: []'), 'every')).toEqual(
      [],
    );
  });

  it('should list what is still open when nothing was expected', async () => {
    const path = bigOrder('expect:', '  waits: []');
    await brokenAt(path, 5, 'expect.waits', 'expected []', 'observed ["user task approve"]');
  });

  it('should match an open user task and where the track waits', async () => {
    const path = bigOrder(
      'expect:',
      '  waits: [{ userTask: approve }]',
      '  userTasks: [approve]',
      '  active: [approve]',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should match a timer by its due time from the check', async () => {
    const holds = file(
      `models: ${MESSAGES}`,
      'start: { variables: { orderId: W-1 } }',
      'handlers: { refund: {}, chase: {} }',
      'moves:',
      '  - message: payment-received', // 5
      '    correlationKey: W-1',
      '  - advance: PT2H',
      'expect:',
      '  waits: [{ timer: a-day-passes, dueIn: PT22H }, { message: shipped, element: shipment-notice }]',
    );
    expect(await failuresOf(holds, 'every')).toEqual([]);
    const broken = holds.replace(/case-\d+/, `case-${count + 1}`);
    writeFileSync(broken, (await import('node:fs')).readFileSync(holds, 'utf8').replace('PT22H', 'PT1H'));
    count++;
    await brokenAt(
      broken,
      9,
      'expect.waits',
      'timer a-day-passes due in 3600000 ms',
      'timer a-day-passes due in 79200000 ms',
    );
  });
});

describe('an expect move', () => {
  it('should check what holds at that point of every run, killed or not', async () => {
    const path = bigOrder(
      'moves:',
      '  - expect: { status: running, userTasks: [approve], waits: [{ userTask: approve }] }',
      '  - complete: approve',
      '    variables: { approved: true }',
      '  - expect: { status: completed, waits: [] }',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should name the move and its field when it does not hold', async () => {
    const path = bigOrder('moves:', '  - expect:', '      status: completed');
    await brokenAt(path, 6, 'moves[0].expect.status', 'expected "completed"', 'observed "running"');
  });
});

describe('a message expected to match nothing', () => {
  const messages = (...moves: string[]) =>
    file(
      `models: ${MESSAGES}`,
      'start: { variables: { orderId: U-1 } }',
      'handlers: { refund: {}, chase: {} }',
      'moves:',
      ...moves,
    );

  it('should hold when no subscription takes it', async () => {
    const path = messages('  - message: shipped', '    correlationKey: U-1', '    expect: unmatched');
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should fail naming the move when a subscription took it', async () => {
    const path = messages('  - message: payment-received', '    correlationKey: U-1', '    expect: unmatched');
    await brokenAt(
      path,
      7,
      'moves[0].expect',
      'expected message "payment-received" to match nothing',
      'observed it correlated',
    );
  });
});

describe('handlers by element', () => {
  it("should run an element's own script instead of its task type's", async () => {
    const path = smallOrder(
      'handlers:',
      '  byElement:',
      '    reserve-stock: { delay: PT5M, result: { reserved: slow } }',
      'expect:',
      '  variables: { reserved: slow, paymentId: PAY-S-1 }',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should refuse at load an element that is not a service task', async () => {
    const path = smallOrder('handlers:', '  byElement:', '    approve: { delay: PT5M }');
    await expect(loadFixture(path)).rejects.toThrow(
      /:6: handlers\.byElement\.approve: "approve" is not a service task of process order-fulfilment/,
    );
  });
});

describe('a restart move', () => {
  it('should let a message reach a stopped engine through the repository', async () => {
    const path = file(
      `models: ${MESSAGES}`,
      'start: { variables: { orderId: R-1 } }',
      'handlers: { refund: {}, chase: {} }',
      'moves:',
      '  - restart:',
      '      whileStopped:',
      '        - message: payment-received',
      '          correlationKey: R-1',
      '          variables: { amount: 7 }',
      'expect:',
      '  variables: { amount: 7 }',
      '  waits: [{ timer: a-day-passes }, { message: shipped }]',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should give the recovering engine the changed handlers', async () => {
    const path = bigOrder(
      'moves:',
      '  - restart:',
      '      handlers: { charge-payment: { result: { paymentId: CHANGED } } }',
      '  - complete: approve',
      '    variables: { approved: true }',
      'expect:',
      '  status: completed',
      '  variables: { paymentId: CHANGED }',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should raise an incident when a handler is missing on the recovering engine', async () => {
    const path = bigOrder(
      'moves:',
      '  - restart: { withoutHandlers: [charge-payment] }',
      '  - complete: approve',
      '    variables: { approved: true }',
      'expect:',
      '  status: running',
      '  incidents: [{ element: charge-payment, kind: job-failed }]',
    );
    expect(await failuresOf(path, 'every')).toEqual([]);
  });

  it('should refuse at load a task type the models do not have', async () => {
    const path = bigOrder('moves:', '  - restart: { withoutHandlers: [charge-card] }');
    await expect(loadFixture(path)).rejects.toThrow(FixtureError);
    await expect(loadFixture(path)).rejects.toThrow(
      /:5: moves\[0\]\.restart\.withoutHandlers\[0\]: unknown task type charge-card/,
    );
  });
});

describe('handler runs under kills', () => {
  it('should report per element the uninterrupted runs and the calls kills added', async () => {
    const report = await runFixture(
      smallOrder('handlers:', '  reserve-stock: { delay: PT1M, result: { reserved: true } }'),
      {
        kill: { kind: 'every' },
      },
    );
    expect(report.ok).toBe(true);
    expect(report.handlerRuns.validate).toMatchObject({ uninterrupted: 1 });
    const reserve = report.handlerRuns['reserve-stock']!;
    expect(reserve.uninterrupted).toBe(1);
    // A kill while the slow handler is in flight makes the recovering engine call it again, once.
    expect(reserve.killsThatRepeated).toBeGreaterThan(0);
    expect(reserve.extraByKills).toBe(reserve.killsThatRepeated);
    expect(reserve.killsThatRepeated).toBeLessThanOrEqual(report.tried.length);
  });
});
