import { copyFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FixtureError, loadFixture, parseFixture } from '@thresher/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runApiSigkillFixture } from '../src/fixture-api/run.js';
import { Workspace } from './helpers.js';

/**
 * `via: api` fixtures under `thresher test --kill random:N`: a real `thresher serve` on a SQLite file, SIGKILLed at
 * random instants while the fixture's job workers long-poll it, everything driven through Camunda's REST API; each
 * round's end equal to the in-process run's. (The server runs built: `pnpm test` builds first.)
 */
const ORDER = fileURLToPath(new URL('../../../fixtures/api/order.fixture.yaml', import.meta.url));
const MODEL = fileURLToPath(new URL('../../../fixtures/api/order.bpmn', import.meta.url));

const workspace = new Workspace();
afterAll(() => workspace.remove());

/** The order fixture's text with `replace` applied, written beside a copy of its model. */
function variant(name: string, replace: (text: string) => string): string {
  copyFileSync(MODEL, workspace.path('order.bpmn'));
  return workspace.write(name, replace(readFileSync(ORDER, 'utf8')));
}

describe('via: api fixtures killed at random', () => {
  it('should end every round of a server SIGKILLed while workers long-poll it as the in-process run ends', async () => {
    const fixture = await loadFixture(ORDER);

    const report = await runApiSigkillFixture(fixture, 4, 20261206);

    expect(report.failures).toEqual([]);
    expect(report.expectationFailures).toEqual([]);
    expect(report.tried).toHaveLength(4);
    expect(report.ok).toBe(true);
  }, 120_000);

  it('should fail a round whose end through the API breaks what the fixture expects, naming the field', async () => {
    // The in-process run is held to the same expectation, so both report it; the API round's failure names the field.
    const fixture = await loadFixture(
      variant('wrong.fixture.yaml', (text) =>
        text.replace('paidAmount: 42, backordered: true', 'paidAmount: 42, backordered: false'),
      ),
    );

    const report = await runApiSigkillFixture(fixture, 1, 7);

    expect(report.ok).toBe(false);
    expect(report.failures.map(({ killAt, field }) => [killAt, field])).toEqual([
      [0, 'expect.variables.backordered'],
      [1, 'expect.variables.backordered'],
    ]);
  }, 120_000);

  it('should command `thresher test --kill random:N` to drive a via: api fixture through the API', async () => {
    const dir = fileURLToPath(new URL('../../../fixtures/api', import.meta.url));

    const run = await workspace.thresher(['test', dir, '--kill', 'random:2', '--seed', '3']);

    expect(run.stdout).toContain('2 SIGKILLs (seed 3)');
    expect(run.stdout).toContain('1 passed, 0 failed');
    expect(run.code).toBe(0);
  }, 120_000);
});

describe('what a via: api fixture may say', () => {
  const refusal = async (replace: (text: string) => string): Promise<FixtureError> => {
    const text = replace(readFileSync(ORDER, 'utf8'));
    const error = await parseFixture(text, workspace.path('refused.fixture.yaml')).catch((caught) => caught);
    copyFileSync(MODEL, workspace.path('order.bpmn'));
    expect(error).toBeInstanceOf(FixtureError);
    return error as FixtureError;
  };

  it('should refuse a move the API run does not drive, naming the move and what is driven', async () => {
    copyFileSync(MODEL, workspace.path('order.bpmn'));
    const error = await refusal((text) => text.replace('  - wait: ended', '  - advance: PT1H\n  - wait: ended'));

    expect(error.field).toBe('moves[2]');
    expect(error.message).toContain('a advance move is not driven through the API yet');
    expect(error.message).toContain('complete (without where), message (matched) and wait: ended');
  });

  it('should refuse a handler delay, which waits on a clock the API run does not drive', async () => {
    copyFileSync(MODEL, workspace.path('order.bpmn'));
    const error = await refusal((text) => text.replace('backorder: { result', 'backorder: { delay: PT1S, result'));

    expect(error.field).toBe('handlers.backorder.delay');
  });

  it('should refuse wait: parked and a business key, saying why', async () => {
    copyFileSync(MODEL, workspace.path('order.bpmn'));
    const parked = await refusal((text) => text.replace('  - wait: ended', '  - wait: parked'));
    const keyed = await refusal((text) => text.replace('start:\n', 'start:\n  businessKey: b-1\n'));

    expect(parked.message).toContain('wait: parked has no answer in Camunda');
    expect(keyed.field).toBe('start.businessKey');
  });
});
