import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadFixture } from '@thresher/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSaveKillFixture } from '../src/fixture-sigkill.js';

// The children run the built CLI (pnpm test builds first).
const root = fileURLToPath(new URL('../../../', import.meta.url));
const child = `${root}packages/cli/dist/fixture-child.js`;

beforeAll(() => {
  if (!existsSync(child)) throw new Error(`${child} is missing: run \`pnpm build\` before these tests`);
});

describe('a fixture SIGKILLed right after each of the outside world’s bookkeeping writes', () => {
  // A user-task completion; messages and a clock advance between them; a called child's user task answered
  // through its parent (a completion under way is looked for in the child).
  it.each([
    'fixtures/order-fulfilment/approved-express.fixture.yaml',
    'fixtures/events/messages-shipped.fixture.yaml',
    'fixtures/composites/claims-paid.fixture.yaml',
  ])(
    'should end as the uninterrupted run does, no move applied twice: %s',
    async (file) => {
      const fixture = await loadFixture(`${root}${file}`);

      const report = await runSaveKillFixture(fixture);

      expect(report.failures).toEqual([]);
      expect(report.expectationFailures).toEqual([]);
      // Each move is recorded under way and then done, so a chain that reached the end died at least once per move.
      expect(report.tried.length).toBeGreaterThanOrEqual(fixture.moves.length);
      expect(report.tried[0]).toBe(1);
      expect(report.ok).toBe(true);
    },
    120_000,
  );
});
