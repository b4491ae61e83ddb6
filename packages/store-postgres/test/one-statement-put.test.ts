import {
  ConflictError,
  type InstanceMeta,
  LeaseLostError,
  ParentLinkError,
  type PutCheckpoint,
} from '@thresher/checkpoint';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  BACKEND,
  type CountedRepository,
  closeBackend,
  dropSchema,
  freshSchema,
  openCountedRepository,
} from './backend.js';

const opened: CountedRepository[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const counted of opened.splice(0)) await counted.close();
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});
afterAll(closeBackend);

async function open(): Promise<CountedRepository> {
  const schema = freshSchema();
  schemas.push(schema);
  const counted = await openCountedRepository(schema);
  opened.push(counted);
  return counted;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

function checkpoint(instanceId: string, seq: number, meta: Partial<InstanceMeta> = {}): PutCheckpoint {
  return {
    instanceId,
    seq,
    parentSeq: seq === 1 ? null : seq - 1,
    schema: 1,
    definitionDigest: 'definition-digest',
    digest: `digest-${instanceId}-${seq}`,
    bytes: utf8(`${instanceId}:${seq}`),
    meta: {
      status: 'running',
      processId: 'order_process',
      definitionId: 'order-fulfilment',
      businessKey: 'A-1001',
      parentId: null,
      callNodeId: null,
      dueAt: null,
      subscriptions: [],
      ...meta,
    },
  };
}

/** What `run` sent, the recorded statements emptied before it. */
async function sent<T>(counted: CountedRepository, run: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  counted.statements.length = 0;
  const value = await run();
  return { value, statements: counted.statements.splice(0) };
}

/** What `run` was refused with, and what it sent. */
async function refused(counted: CountedRepository, run: () => Promise<unknown>) {
  const { value, statements } = await sent(counted, () =>
    run().then(
      () => expect.fail('the put should have been refused'),
      (error: unknown) => error,
    ),
  );
  return { error: value, statements };
}

const ONE_STATEMENT = /^SELECT outcome, .* FROM "\w+"\.put_checkpoint\(/;

describe(`put in one round trip on ${BACKEND === 'server' ? 'the THRESHER_PG_URL server' : 'PGlite'}`, () => {
  it("should store an instance's ordinary life in one statement per put: created with its claim, advanced under the fence, ended with a release", async () => {
    const counted = await open();
    const { repository } = counted;

    const created = await sent(counted, () =>
      repository.put({
        ...checkpoint('order-1', 1, { subscriptions: [{ name: 'paid', key: 'A-1001' }] }),
        claim: { owner: 'node-a', ttlMs: 1000, now: 5000 },
      }),
    );
    const lease = created.value!;
    const fence = { owner: 'node-a', token: lease.token };
    const advanced = await sent(counted, () =>
      repository.put({
        ...checkpoint('order-1', 2, {
          dueAt: 9000.5,
          subscriptions: [
            { name: 'shipped', key: null },
            { name: 'cancelled', key: 'A-1001' },
          ],
        }),
        fence,
      }),
    );
    expect(await repository.lease('order-1')).toEqual(lease);
    const ended = await sent(counted, () =>
      repository.put({ ...checkpoint('order-1', 3, { status: 'completed' }), fence, release: true }),
    );

    expect(lease).toEqual({ instanceId: 'order-1', owner: 'node-a', token: expect.any(Number), expiresAt: 6000 });
    expect(Number.isSafeInteger(lease.token) && lease.token > 0).toBe(true);
    for (const { statements } of [created, advanced, ended]) {
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(ONE_STATEMENT);
    }
    expect(advanced.value).toBeUndefined();
    expect(ended.value).toBeUndefined();
    expect(await repository.lease('order-1')).toBeUndefined();
    expect((await repository.list('order-1')).map(({ seq, parentSeq, digest }) => [seq, parentSeq, digest])).toEqual([
      [1, null, 'digest-order-1-1'],
      [2, 1, 'digest-order-1-2'],
      [3, 2, 'digest-order-1-3'],
    ]);
    expect([...(await repository.get('order-1'))!.bytes]).toEqual([...utf8('order-1:3')]);
    expect(await repository.instances()).toEqual([
      {
        ...checkpoint('order-1', 3, { status: 'completed' }).meta,
        instanceId: 'order-1',
        latestSeq: 3,
        definitionDigest: 'definition-digest',
        rootId: 'order-1',
      },
    ]);
  });

  it('should index what the one statement stores as the full rules do: due timers, subscriptions in order, and the call tree', async () => {
    const counted = await open();
    const { repository } = counted;
    await repository.put(checkpoint('root', 1));
    await repository.put(checkpoint('child', 1, { parentId: 'root', callNodeId: 'call' }));

    const grandchild = await sent(counted, () =>
      repository.put(
        checkpoint('grandchild', 1, {
          parentId: 'child',
          callNodeId: 'call',
          dueAt: 70,
          subscriptions: [
            { name: 'b', key: null },
            { name: 'a', key: 'k' },
          ],
        }),
      ),
    );

    expect(grandchild.statements).toHaveLength(1);
    expect((await repository.instances({ rootId: 'root' })).map(({ instanceId }) => instanceId)).toEqual([
      'child',
      'grandchild',
      'root',
    ]);
    expect(await repository.dueTimers(100, 10)).toEqual([{ instanceId: 'grandchild', dueAt: 70 }]);
    expect(await repository.subscriptions('a', 'k')).toEqual(['grandchild']);
    expect(await repository.subscriptions('b', null)).toEqual(['grandchild']);
    expect((await repository.instances({ parentId: 'child' }))[0]?.subscriptions).toEqual([
      { name: 'b', key: null },
      { name: 'a', key: 'k' },
    ]);
  });

  it('should take no lease with the first put of an instance that is not running, as claim would not', async () => {
    const counted = await open();
    const { repository } = counted;

    const { value, statements } = await sent(counted, () =>
      repository.put({
        ...checkpoint('order-1', 1, { status: 'completed' }),
        claim: { owner: 'node-a', ttlMs: 1000, now: 0 },
      }),
    );

    expect(value).toBeUndefined();
    expect(statements).toHaveLength(1);
    expect(await repository.lease('order-1')).toBeUndefined();
    expect((await repository.get('order-1'))?.seq).toBe(1);
  });

  it('should leave a replay, a stale parent, a lost fence and a missing parent to the full rules in a fenced transaction, with their usual outcomes', async () => {
    const counted = await open();
    const { repository } = counted;
    const first = checkpoint('order-1', 1);
    const lease = (await repository.put({ ...first, claim: { owner: 'node-a', ttlMs: 1000, now: 0 } }))!;
    const fence = { owner: 'node-a', token: lease.token };
    await repository.put({ ...checkpoint('order-1', 2), fence });

    const replay = await sent(counted, () => repository.put({ ...checkpoint('order-1', 2), fence }));
    const stale = await refused(counted, () =>
      repository.put({ ...checkpoint('order-1', 3), parentSeq: 1, digest: 'other', fence }),
    );
    const lost = await refused(counted, () =>
      repository.put({ ...checkpoint('order-1', 3), fence: { owner: 'node-a', token: lease.token + 1 } }),
    );
    const unfenced = await refused(counted, () => repository.put(checkpoint('order-1', 3)));
    const orphan = await refused(counted, () =>
      repository.put(checkpoint('child', 1, { parentId: 'nobody', callNodeId: 'call' })),
    );

    expect(replay.value).toBeUndefined();
    expect(stale.error).toBeInstanceOf(ConflictError);
    expect(lost.error).toBeInstanceOf(LeaseLostError);
    expect(unfenced.error).toBeInstanceOf(LeaseLostError);
    expect(orphan.error).toBeInstanceOf(ParentLinkError);
    for (const { statements } of [replay, stale, lost, unfenced, orphan]) {
      expect(statements[0]).toMatch(ONE_STATEMENT);
      expect(statements[1]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock_shared/);
      expect(statements.at(-1)).toMatch(/^(COMMIT|ROLLBACK)$/);
    }
    expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    expect(await repository.get('child')).toBeUndefined();
    expect(await repository.lease('order-1')).toEqual(lease);
  });

  it('should refuse a fence that no stored lease can match without asking the server to compare it', async () => {
    const counted = await open();
    const { repository } = counted;
    await repository.put({ ...checkpoint('order-1', 1), claim: { owner: 'node-a', ttlMs: 1000, now: 0 } });

    const fractional = await refused(counted, () =>
      repository.put({ ...checkpoint('order-1', 2), fence: { owner: 'node-a', token: 1.5 } }),
    );
    // A lone surrogate, which the driver would send as U+FFFD.
    const unstorable = await refused(counted, () =>
      repository.put({ ...checkpoint('order-1', 2), fence: { owner: 'node-\ud800', token: 1 } }),
    );

    for (const { error, statements } of [fractional, unstorable]) {
      expect(error).toBeInstanceOf(LeaseLostError);
      expect(statements[0]).toMatch(/^BEGIN; /);
    }
    expect((await repository.get('order-1'))?.seq).toBe(1);
  });

  it('should commit puts that arrive together in one transaction, each put one statement in it', async () => {
    const counted = await open();
    const { repository } = counted;

    const { value, statements } = await sent(counted, () =>
      Promise.all(['order-1', 'order-2', 'order-3'].map((id) => repository.put(checkpoint(id, 1)))),
    );

    expect(value).toEqual([undefined, undefined, undefined]);
    expect(statements).toHaveLength(5);
    expect(statements[0]).toMatch(ONE_STATEMENT);
    expect(statements[1]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock_shared/);
    expect(statements.slice(2, 4)).toEqual([
      expect.stringMatching(ONE_STATEMENT),
      expect.stringMatching(ONE_STATEMENT),
    ]);
    expect(statements[4]).toBe('COMMIT');
    expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual([
      'order-1',
      'order-2',
      'order-3',
    ]);
  });
});
