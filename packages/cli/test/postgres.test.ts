import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../src/drive.js';
import { ExitCode } from '../src/exit-code.js';
import type { StoreSpec } from '../src/store.js';
import { PG_URL, TestSchemas, Workspace } from './helpers.js';

/**
 * The sample model end to end on each kind of store `--store` accepts. PostgreSQL runs against the server
 * named by THRESHER_PG_URL (`.ci/run` sets it), each test in its own schema (`?schema=` in the store URL),
 * dropped afterwards; without the variable those tests are skipped, saying why.
 */
const NO_SERVER = PG_URL === undefined ? ' (skipped: THRESHER_PG_URL is not set, so there is no server)' : '';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/order-fulfilment/${name}`, import.meta.url));

const ws = new Workspace();
const schemas = new TestSchemas('thresher_test');

afterEach(() => schemas.drop());
afterAll(() => ws.remove());

/** A `postgres://` store URL on the test server, in a schema of its own. */
const postgresStore = (): string => schemas.store();

type StoreKind = StoreSpec['kind'];

/** The `--store` value of each kind; a new kind of store does not compile until it is covered here. */
const stores: Record<StoreKind, { store: () => string; keeps: boolean; skip: string }> = {
  memory: { store: () => 'memory:', keeps: false, skip: '' },
  sqlite: { store: () => `sqlite:${ws.path(`sample-${randomBytes(4).toString('hex')}.db`)}`, keeps: true, skip: '' },
  postgres: { store: postgresStore, keeps: true, skip: NO_SERVER },
};

const sample = [
  'run',
  fixture('order-fulfilment.bpmn'),
  '--handlers',
  fixture('handlers.mjs'),
  '--var',
  'orderId=A-1',
  '--var',
  'total=120',
  '--var',
  'approved=true',
  '--var',
  'express=true',
  '--yes',
  '--json',
];

describe('the order-fulfilment sample on every store', () => {
  for (const [kind, { store, keeps, skip }] of Object.entries(stores)) {
    it.skipIf(skip !== '')(`should run to completion on ${kind}${skip}`, async () => {
      const url = store();

      const run = await ws.thresher([...sample, '--store', url]);

      expect(run.stderr).toBe('');
      expect(run.code).toBe(ExitCode.Ok);
      const outcome = run.json<Outcome>();
      expect(outcome).toMatchObject({
        status: 'completed',
        processId: 'order-fulfilment',
        variables: {
          orderId: 'A-1',
          total: 120,
          approved: true,
          express: true,
          paymentId: 'PAY-A-1',
          courier: 'express',
        },
      });
      if (!keeps) return;
      const listed = await ws.thresher(['instances', '--store', url, '--json']);
      expect(listed.code).toBe(ExitCode.Ok);
      expect(JSON.stringify(listed.json())).toContain(outcome.instanceId);
      const shown = await ws.thresher(['show', outcome.instanceId, '--store', url, '--json']);
      expect(shown.code).toBe(ExitCode.Ok);
      expect(shown.json()).toMatchObject({ id: outcome.instanceId, status: 'completed' });
    });
  }

  it.skipIf(PG_URL === undefined)(
    `should keep instances of different schemas apart on one server${NO_SERVER}`,
    async () => {
      const [first, second] = [postgresStore(), postgresStore()];
      const run = await ws.thresher([...sample, '--store', first]);
      expect(run.code).toBe(ExitCode.Ok);

      const elsewhere = await ws.thresher(['instances', '--store', second, '--json']);

      expect(elsewhere.code).toBe(ExitCode.Ok);
      expect(JSON.stringify(elsewhere.json())).not.toContain(run.json<Outcome>().instanceId);
    },
  );
});
