import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTestArgs } from '../src/commands/test.js';
import { Workspace } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const approved = `${root}fixtures/order-fulfilment/approved-express.fixture.yaml`;
/** Its stock reservation takes five minutes of virtual time: a child killed meanwhile runs it again. */
const gift = `${root}fixtures/order-fulfilment/no-approval-gift.fixture.yaml`;

let workspace: Workspace | undefined;
afterEach(() => workspace?.remove());

interface TestDocument {
  ok: boolean;
  fixtures: { name: string; ok: boolean; tried: number[]; failures: unknown[] }[];
}

describe('thresher test --kill saves', () => {
  it('should read saves as a plan of its own', () => {
    expect(parseTestArgs(['--kill', 'saves'])).toMatchObject({ help: false, kill: { kind: 'saves' } });
  });

  it('should pass a fixture whose child is SIGKILLed right after each save, counting the kills from save 1', async () => {
    // The child process runs the built CLI (pnpm test builds first).
    expect(existsSync(`${root}packages/cli/dist/fixture-child.js`)).toBe(true);
    workspace = new Workspace();

    const run = await workspace.thresher(['test', approved, '--kill', 'saves', '--json']);

    const [report] = run.json<TestDocument>().fixtures;
    expect(run.code, JSON.stringify(report?.failures)).toBe(0);
    expect(report).toMatchObject({ name: 'order approved, express', ok: true, failures: [] });
    // One user task to complete and one wait: each recorded under way, then done.
    expect(report!.tried[0]).toBe(1);
    expect(report!.tried.length).toBeGreaterThanOrEqual(4);
  });

  it('should go one save further after a child that only pushed the clock, so a cut-short timed call ends', async () => {
    workspace = new Workspace();

    const run = await workspace.thresher(['test', gift, '--kill', 'saves', '--json']);

    const [report] = run.json<TestDocument>().fixtures;
    expect(run.code, JSON.stringify(report?.failures)).toBe(0);
    expect(report).toMatchObject({ name: 'small gift order, no approval', ok: true, failures: [] });
    expect(report!.tried.length).toBeGreaterThanOrEqual(3);
  });
});
