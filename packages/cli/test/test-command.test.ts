import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { Workspace } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const approved = `${root}fixtures/order-fulfilment/approved-express.fixture.yaml`;
const orderModel = `${root}fixtures/order-fulfilment/order-fulfilment.bpmn`;
const orderHandlers = `${root}fixtures/order-fulfilment/handlers.mjs`;

let workspace: Workspace;
afterEach(() => workspace?.remove());

interface TestDocument {
  ok: boolean;
  seed: number;
  fixtures: {
    name: string;
    ok: boolean;
    tried?: number[];
    persistPoints?: number;
    error?: string;
    failures?: unknown[];
  }[];
}

describe('thresher test', () => {
  it('should pass a fixture killed at every persist point', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['test', approved, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const [report] = run.json<TestDocument>().fixtures;
    expect(report).toMatchObject({ name: 'order approved, express', ok: true });
    expect(report!.tried).toHaveLength(report!.persistPoints!);
  });

  it('should kill only at the given persist points', async () => {
    workspace = new Workspace();
    const run = await workspace.thresher(['test', approved, '--kill', '2,5', '--json']);
    expect(run.code).toBe(0);
    expect(run.json<TestDocument>().fixtures[0]!.tried).toEqual([2, 5]);
  });

  it('should find every *.fixture.yaml under ./fixtures by default and end with a count line', async () => {
    workspace = new Workspace();
    mkdirSync(workspace.path('fixtures/a'), { recursive: true });
    workspace.write(
      'fixtures/a/one.fixture.yaml',
      `models: ${orderModel}\nhandlersModule: ${orderHandlers}\nstart: { variables: { orderId: Z-1, total: 10 } }\nkill: none\nexpect: { status: completed }\n`,
    );
    const run = await workspace.thresher(['test']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('ok   one');
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('should fail a fixture whose expectation does not hold, naming the field', async () => {
    workspace = new Workspace();
    const file = workspace.write(
      'wrong.fixture.yaml',
      `models: ${orderModel}\nhandlersModule: ${orderHandlers}\nstart: { variables: { orderId: Z-2, total: 10 } }\nkill: none\nexpect: { status: completed, variables: { courier: express } }\n`,
    );
    const run = await workspace.thresher(['test', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL wrong');
    expect(run.stdout).toContain('expect.variables.courier: expected "express", observed "standard"');
  });

  it('should report a fixture that cannot run with its file, line and field', async () => {
    workspace = new Workspace();
    const file = workspace.write(
      'bad.fixture.yaml',
      `models: ${orderModel}\nhandlersModule: ${orderHandlers}\nhandlers:\n  no-such-type: { result: {} }\n`,
    );
    const run = await workspace.thresher(['test', file, '--json']);
    expect(run.code).toBe(1);
    const [report] = run.json<TestDocument>().fixtures;
    expect(report!.error).toMatch(/bad\.fixture\.yaml:4: handlers\.no-such-type: unknown task type/);
  });

  it.each([
    ['--kill', 'sometimes'],
    ['--kill', 'random:0'],
    ['--seed', 'x'],
    ['--kill', '0,3'],
  ])('should refuse %s %s as a usage error', async (flag, value) => {
    workspace = new Workspace();
    const run = await workspace.thresher(['test', approved, flag, value]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(flag);
  });

  it('should survive random SIGKILLs of a child process on SQLite and print the seed', async () => {
    // The child process runs the built CLI (pnpm test builds first).
    expect(existsSync(`${root}packages/cli/dist/fixture-child.js`)).toBe(true);
    workspace = new Workspace();
    const run = await workspace.thresher(['test', approved, '--kill', 'random:3', '--seed', '7', '--json']);
    expect(run.code, JSON.stringify(run.json<TestDocument>().fixtures[0]?.failures)).toBe(0);
    const document = run.json<TestDocument>();
    expect(document.seed).toBe(7);
    expect(document.fixtures[0]).toMatchObject({ ok: true });
    expect(document.fixtures[0]!.tried!.length).toBeGreaterThanOrEqual(3);
  });

  it('should run a polling loop to the same end under five random SIGKILLs, its history whole', async () => {
    // The fifteen polls of fixtures/long-lived/, each a persist point, the older checkpoints dropped as it goes.
    workspace = new Workspace();
    const poll = `${root}fixtures/long-lived/poll.fixture.yaml`;
    const run = await workspace.thresher(['test', poll, '--kill', 'random:5', '--seed', '55', '--json']);
    expect(run.code, JSON.stringify(run.json<TestDocument>().fixtures[0]?.failures)).toBe(0);
    expect(run.json<TestDocument>().fixtures[0]).toMatchObject({ ok: true });
    expect(run.json<TestDocument>().fixtures[0]!.tried!.length).toBeGreaterThanOrEqual(5);
  });
});
