import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from './helpers.js';

// The children run the built CLI (pnpm test builds first).
const root = fileURLToPath(new URL('../../../', import.meta.url));

let workspace: Workspace | undefined;
afterEach(() => workspace?.remove());

interface TestDocument {
  fixtures: { ok: boolean; tried: number[]; failures: { killAt: number; field: string; actual: unknown }[] }[];
}

/** Paid, then a day passes and the shipment is chased; `midway` is what must hold once paid. */
function fixture(midway: string): string {
  return `name: paid then chased
models: ${root}fixtures/events/messages.bpmn
start: { variables: { orderId: K-1 } }
handlers:
  refund: { result: { refunded: true } }
  chase: { result: { chased: true } }
moves:
  - message: payment-received
    correlationKey: K-1
    variables: { amount: 7 }
  - expect: { status: ${midway}, active: [which-first] }
  - advance: P1D
  - wait: ended
expect:
  status: completed
  elementRuns: { chase: 1, refund: 0 }
  handlerRuns: { chase: 1 }
`;
}

describe('expect moves in the SIGKILL child processes', () => {
  it('should hold mid-way and at the end in every child of a run killed after each save', async () => {
    workspace = new Workspace();
    const file = workspace.write('midway.fixture.yaml', fixture('running'));

    const run = await workspace.thresher(['test', file, '--kill', 'saves', '--json']);

    const [report] = run.json<TestDocument>().fixtures;
    expect(report!.failures).toEqual([]);
    expect(run.code).toBe(0);
    expect(report!.tried.length).toBeGreaterThanOrEqual(4);
  });

  it('should report an expect move the child finds broken, naming its field', async () => {
    workspace = new Workspace();
    const file = workspace.write('wrong.fixture.yaml', fixture('completed'));

    const run = await workspace.thresher(['test', file, '--kill', 'random:1', '--seed', '1', '--json']);

    expect(run.code).toBe(1);
    // Round 0 is the uninterrupted child: the child itself checked the move, not only the in-process run.
    expect(run.json<TestDocument>().fixtures[0]!.failures[0]).toMatchObject({
      killAt: 0,
      field: 'moves[1].expect.status',
      actual: 'running',
    });
  });
});
