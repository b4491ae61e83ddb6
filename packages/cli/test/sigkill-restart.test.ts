import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFixture } from '@thresher/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { runSaveKillFixture, runSigkillFixture } from '../src/fixture-sigkill.js';

// The children run the built CLI (pnpm test builds first).
const root = fileURLToPath(new URL('../../../', import.meta.url));
const child = `${root}packages/cli/dist/fixture-child.js`;
const messages = `${root}fixtures/events/messages.bpmn`;

beforeAll(() => {
  if (!existsSync(child)) throw new Error(`${child} is missing: run \`pnpm build\` before these tests`);
});

/** A fixture whose engine stops between two moves while a message is filed with the store alone. */
function restartFixture(amountExpected: number): string {
  const file = join(mkdtempSync(join(tmpdir(), 'thresher-sigkill-restart-')), 'restart.fixture.yaml');
  writeFileSync(
    file,
    [
      `models: ${messages}`,
      'start: { variables: { orderId: R-1 } }',
      'handlers: { refund: {}, chase: {} }',
      'moves:',
      '  - restart:',
      '      whileStopped:',
      '        - { message: payment-received, correlationKey: R-1, variables: { amount: 7 } }',
      `  - expect: { variables: { amount: ${amountExpected} } }`,
      '  - advance: PT2H',
      '  - { message: shipped, correlationKey: R-1 }',
      '  - wait: ended',
      'expect: { status: completed, ended: [delivered], waits: [] }',
      '',
    ].join('\n'),
  );
  return file;
}

describe('a restart move in SIGKILLed child processes', () => {
  it('should deliver the message filed while no engine ran, killed after every bookkeeping write', async () => {
    const report = await runSaveKillFixture(await loadFixture(restartFixture(7)));
    expect(report.failures).toEqual([]);
    expect(report.expectationFailures).toEqual([]);
    expect(report.tried.length).toBeGreaterThan(3);
    expect(report.ok).toBe(true);
  }, 120_000);

  it('should report an expect move that does not hold with its file, line and field, in every round', async () => {
    const file = restartFixture(8);
    const report = await runSigkillFixture(await loadFixture(file), 1, 5);
    expect(report.ok).toBe(false);
    expect(report.expectationFailures).toEqual([`${file}:8: moves[1].expect.variables.amount: expected 8, observed 7`]);
    expect(report.failures.map((failure) => failure.message)).toContain(
      `${file}:8: moves[1].expect.variables.amount: expected 8, observed 7`,
    );
  }, 120_000);
});
