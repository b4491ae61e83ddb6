import {
  ConflictError,
  type InstanceMeta,
  LeaseLostError,
  ParentLinkError,
  type PutCheckpoint,
  StaleDeploymentsError,
} from '@thresher/checkpoint';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../src/index.js';
import {
  adminPool,
  BACKEND,
  type CountedRepository,
  closeBackend,
  dropSchema,
  freshSchema,
  NEEDS_SERVER,
  openCountedRepository,
  PG_URL,
} from './backend.js';

const opened: CountedRepository[] = [];
const schemas: string[] = [];

afterEach(async () => {
  for (const counted of opened.splice(0)) await counted.close();
  for (const schema of schemas.splice(0)) await dropSchema(schema);
});
afterAll(closeBackend);

async function open(options?: Parameters<typeof openCountedRepository>[1]): Promise<CountedRepository> {
  const schema = freshSchema();
  schemas.push(schema);
  const counted = await openCountedRepository(schema, options);
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
      endedAt: null,
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
const BATCH_STATEMENT = /^WITH j AS MATERIALIZED \(\s*SELECT .* FROM jsonb_array_elements\(\$1::jsonb\)/;
const RELEASE_STATEMENT = /^SELECT outcome, schema_version FROM "\w+"\.release_leases\(/;
const FENCED_BEGIN = /^BEGIN; SELECT pg_advisory_xact_lock_shared/;

/** Writes issued at once: the first runs alone, the others wait for it and form one batch. */
function atOnce<T>(...writes: (() => Promise<T>)[]): Promise<T[]> {
  return Promise.all(writes.map((write) => write()));
}

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
        serial: expect.any(Number),
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

  it('should send a batch of puts of different instances as one statement inside BEGIN and COMMIT', async () => {
    const counted = await open();
    const { repository } = counted;
    const ids = ['order-0', 'order-1', 'order-2', 'order-3', 'order-4', 'order-5'];

    const { value, statements } = await sent(counted, () =>
      atOnce(
        ...ids.map(
          (id, i) => () =>
            repository.put({
              ...checkpoint(id, 1, { subscriptions: i % 2 ? [] : [{ name: `m${i}`, key: i > 2 ? null : `k${i}` }] }),
              ...(i === 4 ? { bytes: new Uint8Array(0) } : {}),
              claim: { owner: 'node-a', ttlMs: 1000, now: i },
            }),
        ),
      ),
    );

    // The first ran alone; the five that waited for it went in one statement.
    expect(statements).toEqual([
      expect.stringMatching(ONE_STATEMENT),
      expect.stringMatching(FENCED_BEGIN),
      expect.stringMatching(BATCH_STATEMENT),
      'COMMIT',
    ]);
    expect(value.map((lease) => lease?.expiresAt)).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
    expect(new Set(value.map((lease) => lease?.token)).size).toBe(6);
    for (const [i, id] of ids.entries()) expect(await repository.lease(id)).toEqual(value[i]);
    expect((await repository.instances()).map(({ subscriptions }) => subscriptions)).toEqual([
      [{ name: 'm0', key: 'k0' }],
      [],
      [{ name: 'm2', key: 'k2' }],
      [],
      [{ name: 'm4', key: null }],
      [],
    ]);
    // Each document is its own slice of the documents sent together, an empty one too.
    expect(
      await Promise.all(ids.map(async (id) => new TextDecoder().decode((await repository.get(id))!.bytes))),
    ).toEqual(['order-0:1', 'order-1:1', 'order-2:1', 'order-3:1', '', 'order-5:1']);
  });

  it("should file a batch's log entries in its order and prune each put to its keepLast, as a lone put does", async () => {
    // given three instances of four checkpoints each, and one not yet stored
    const counted = await open();
    const { repository } = counted;
    const ids = ['order-a', 'order-b', 'order-c'];
    for (const id of ids) for (let seq = 1; seq <= 4; seq++) await repository.put(checkpoint(id, seq));
    const before = await repository.history();

    // when their next puts and the new one's first go in one batch, each with its log entry, two pruning
    const logged = (id: string, seq: number) => utf8(`log ${id}@${seq}`);
    const { statements } = await sent(counted, () =>
      atOnce(
        () => repository.put({ ...checkpoint('order-z', 1), log: logged('order-z', 1) }),
        () => repository.put({ ...checkpoint('order-a', 5), log: logged('order-a', 5), keepLast: 2 }),
        () => repository.put({ ...checkpoint('order-b', 5), log: logged('order-b', 5), keepLast: 1 }),
        () =>
          repository.put({
            ...checkpoint('order-c', 5, { status: 'completed', endedAt: 1_700_000_000_000.25 }),
            log: logged('order-c', 5),
          }),
      ),
    );

    // then the three after the first went in one statement; their entries follow its, in the batch's order
    expect(statements).toEqual([
      expect.stringMatching(ONE_STATEMENT),
      expect.stringMatching(FENCED_BEGIN),
      expect.stringMatching(BATCH_STATEMENT),
      'COMMIT',
    ]);
    expect(before).toEqual([]);
    const entries = await repository.history();
    expect(entries.map(({ instanceId, seq }) => `${instanceId}@${seq}`)).toEqual([
      'order-z@1',
      'order-a@5',
      'order-b@5',
      'order-c@5',
    ]);
    for (const entry of entries) {
      expect(new TextDecoder().decode(entry.bytes)).toBe(`log ${entry.instanceId}@${entry.seq}`);
    }
    // each kept what it asked, with the new checkpoint among them; the one that asked nothing kept all
    const seqs = async (id: string) => (await repository.list(id)).map(({ seq }) => seq);
    expect([await seqs('order-a'), await seqs('order-b'), await seqs('order-c')]).toEqual([
      [4, 5],
      [5],
      [1, 2, 3, 4, 5],
    ]);
    expect((await repository.instances({ status: 'completed' }))[0]?.endedAt).toBe(1_700_000_000_000.25);
  });

  it('should store text and numbers of a batch exactly as a lone put does: quotes, backslashes, astral characters, fractions of a millisecond', async () => {
    const counted = await open();
    const { repository } = counted;
    const awkward = (i: number) => `"q"\\b\\\\ {a,b} 'x' ü 😀 \t\n ${i}`;
    const put = (i: number) =>
      repository.put({
        ...checkpoint(`odd "id" ${i} 😀`, 1, {
          businessKey: awkward(i),
          processId: `p,${i}`,
          dueAt: 1_796_172_525_210.125 + i,
          subscriptions: [{ name: awkward(i), key: i % 2 ? null : `{${i}}` }],
        }),
        claim: { owner: `node "a" ${i}`, ttlMs: 0.5, now: 1_796_172_525_210.25 },
      });
    const { value, statements } = await sent(counted, () => atOnce(...[0, 1, 2, 3].map((i) => () => put(i))));

    expect(statements.filter((text) => BATCH_STATEMENT.test(text))).toHaveLength(1);
    expect(value.map((lease) => [lease?.owner, lease?.expiresAt])).toEqual(
      [0, 1, 2, 3].map((i) => [`node "a" ${i}`, 1_796_172_525_210.75]),
    );
    const summaries = await repository.instances();
    expect(
      summaries.map(({ instanceId, businessKey, processId, dueAt, subscriptions }) => [
        instanceId,
        businessKey,
        processId,
        dueAt,
        subscriptions,
      ]),
    ).toEqual(
      [0, 1, 2, 3].map((i) => [
        `odd "id" ${i} 😀`,
        awkward(i),
        `p,${i}`,
        1_796_172_525_210.125 + i,
        [{ name: awkward(i), key: i % 2 ? null : `{${i}}` }],
      ]),
    );
  });

  it('should store a call tree written in one batch: the root by the statement, each child of an instance the batch creates by the full rules after it, in order', async () => {
    const counted = await open();
    const { repository } = counted;
    await repository.put(checkpoint('stored-parent', 1));

    const { statements } = await sent(counted, () =>
      atOnce(
        () => repository.put(checkpoint('other', 1)),
        () => repository.put(checkpoint('root', 1)),
        () => repository.put(checkpoint('child', 1, { parentId: 'root', callNodeId: 'call' })),
        () => repository.put(checkpoint('grandchild', 1, { parentId: 'child', callNodeId: 'call' })),
        () => repository.put(checkpoint('sibling', 1, { parentId: 'stored-parent', callNodeId: 'call' })),
      ),
    );

    // The child and the grandchild name a parent the statement writes: the full rules, one transaction.
    expect(statements.slice(1, 3)).toEqual([
      expect.stringMatching(FENCED_BEGIN),
      expect.stringMatching(BATCH_STATEMENT),
    ]);
    expect(statements.filter((text) => BATCH_STATEMENT.test(text))).toHaveLength(1);
    expect(statements.at(-1)).toBe('COMMIT');
    const tree = await repository.instances({ rootId: 'root' });
    expect(tree.map(({ instanceId, parentId, rootId }) => [instanceId, parentId, rootId])).toEqual([
      ['child', 'root', 'root'],
      ['grandchild', 'child', 'root'],
      ['root', null, 'root'],
    ]);
    expect((await repository.instances({ rootId: 'stored-parent' })).map(({ instanceId }) => instanceId)).toEqual([
      'sibling',
      'stored-parent',
    ]);
  });

  it("should replace each instance's subscriptions in a batch, fewer, more or none, and keep every other instance's", async () => {
    const counted = await open();
    const { repository } = counted;
    const subscribed = (...names: string[]) => ({
      subscriptions: names.map((name, i) => ({ name, key: i % 2 ? null : `k-${name}` })),
    });
    const leases = new Map<string, number>();
    for (const [id, names] of [
      ['fewer', ['a', 'b', 'c']],
      ['more', ['a']],
      ['none', ['a', 'b']],
      ['untouched', ['a', 'b']],
    ] as const) {
      const lease = await repository.put({
        ...checkpoint(id, 1, subscribed(...names)),
        claim: { owner: 'node-a', ttlMs: 1000, now: 0 },
      });
      leases.set(id, lease!.token);
    }
    const next =
      (id: string, names: string[], release = false) =>
      () =>
        repository.put({
          ...checkpoint(id, 2, subscribed(...names)),
          fence: { owner: 'node-a', token: leases.get(id)! },
          release,
        });

    const { statements } = await sent(counted, () =>
      atOnce(
        () => repository.put(checkpoint('first', 1)),
        next('fewer', ['x']),
        next('more', ['x', 'y', 'z'], true),
        next('none', []),
        () => repository.put(checkpoint('new', 1, subscribed('n', 'm'))),
      ),
    );

    expect(statements.slice(1)).toEqual([
      expect.stringMatching(FENCED_BEGIN),
      expect.stringMatching(BATCH_STATEMENT),
      'COMMIT',
    ]);
    const byId = new Map((await repository.instances()).map((row) => [row.instanceId, row.subscriptions]));
    expect(Object.fromEntries(byId)).toEqual({
      first: [],
      fewer: subscribed('x').subscriptions,
      more: subscribed('x', 'y', 'z').subscriptions,
      none: [],
      new: subscribed('n', 'm').subscriptions,
      untouched: subscribed('a', 'b').subscriptions,
    });
    expect(await repository.subscriptions('a', 'k-a')).toEqual(['untouched']);
    // The release cleared the lease the fence matched; the others hold theirs.
    expect(await repository.lease('more')).toBeUndefined();
    expect((await repository.lease('fewer'))?.token).toBe(leases.get('fewer'));
  });

  /** A test that races the batch statement with another connection: skipped on PGlite, saying why. */
  const raceIt = (name: string, body: () => Promise<void>) =>
    it.skipIf(BACKEND !== 'server')(BACKEND === 'server' ? name : `${name} (skipped: ${NEEDS_SERVER})`, body);

  /**
   * Run `batch` while another connection holds `hold` uncommitted, commit that once the batch statement waits
   * on it, and answer what the batch's puts settled to and what they sent.
   */
  async function racedBy<T>(counted: CountedRepository, hold: string, values: unknown[], batch: () => Promise<T>) {
    const racer = new pg.Client({ connectionString: PG_URL });
    await racer.connect();
    try {
      await racer.query('BEGIN');
      await racer.query(hold, values);
      const { rows: racing } = await racer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const settled = sent(counted, batch);
      const admin = await adminPool();
      for (let waited = 0; ; waited += 10) {
        // This test's batch statement only: the one the racer's transaction blocks.
        const { rows } = await admin.query<{ waiting: string }>(
          "SELECT count(*) AS waiting FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid)) AND query LIKE 'WITH j AS%'",
          [racing[0]!.pid],
        );
        if (Number(rows[0]!.waiting) > 0) break;
        if (waited > 10_000) expect.fail('the batch statement never waited for the other connection');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await racer.query('COMMIT');
      return await settled;
    } finally {
      await racer.end();
    }
  }

  raceIt(
    "should run a batch again put by put when another connection creates one of its new instances meanwhile: the racer's put a replay, the others stored",
    async () => {
      const counted = await open();
      const { repository } = counted;
      const schema = schemas.at(-1)!;

      // The racer stores the same first checkpoint; the batch's insert of 'raced' waits on its key.
      const { value, statements } = await racedBy(
        counted,
        `SELECT outcome FROM "${schema}".put_checkpoint($1, 1, NULL, 1, 'definition-digest', $2, $3, 'running',
          'order_process', 'order-fulfilment', 'A-1001', NULL, NULL, NULL, '{}', '{}', NULL, NULL, false, NULL, NULL,
          $4, ${SCHEMA_VERSION})`,
        ['raced', 'digest-raced-1', Buffer.from('raced:1'), `thresher.migrate:${schema}`],
        () =>
          atOnce(
            () => repository.put(checkpoint('other', 1)),
            () => repository.put(checkpoint('raced', 1)),
            () => repository.put(checkpoint('good', 1)),
          ),
      );

      expect(value).toEqual([undefined, undefined, undefined]);
      expect(statements.filter((text) => BATCH_STATEMENT.test(text))).toHaveLength(1);
      expect(statements).toContain('ROLLBACK');
      expect((await repository.list('raced')).map(({ seq, digest }) => [seq, digest])).toEqual([[1, 'digest-raced-1']]);
      expect((await repository.get('good'))?.seq).toBe(1);
    },
  );

  raceIt(
    'should decide a batched put on the row as another connection left it: a lease taken over while the batch waited is refused, the others stored',
    async () => {
      const counted = await open();
      const { repository } = counted;
      const schema = schemas.at(-1)!;
      const lease = await repository.put({
        ...checkpoint('taken', 1),
        claim: { owner: 'node-a', ttlMs: 1000, now: 0 },
      });

      // The batch's snapshot still shows node-a's lease; the row it updates, once the racer commits, is node-b's.
      const { value } = await racedBy(
        counted,
        `UPDATE "${schema}".instances SET lease_owner = 'node-b', lease_token = lease_token + 1000 WHERE instance_id = $1`,
        ['taken'],
        () =>
          Promise.allSettled([
            repository.put(checkpoint('other', 1)),
            repository.put({ ...checkpoint('taken', 2), fence: { owner: 'node-a', token: lease!.token } }),
            repository.put(checkpoint('good', 1)),
          ]),
      );

      expect(value.map(({ status }) => status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((value[1] as PromiseRejectedResult).reason).toBeInstanceOf(LeaseLostError);
      expect((await repository.list('taken')).map(({ seq }) => seq)).toEqual([1]);
      expect((await repository.lease('taken'))?.owner).toBe('node-b');
      expect((await repository.get('good'))?.seq).toBe(1);
    },
  );

  it('should apply two puts of one instance in one batch in order, the second beginning a new statement', async () => {
    const counted = await open();
    const { repository } = counted;

    const { statements } = await sent(counted, () =>
      atOnce(
        () => repository.put(checkpoint('other', 1)),
        () => repository.put(checkpoint('order-1', 1)),
        () => repository.put(checkpoint('order-2', 1)),
        () => repository.put(checkpoint('order-1', 2, { status: 'completed' })),
        () => repository.put(checkpoint('order-2', 2)),
        () => repository.put(checkpoint('order-1', 3, { status: 'completed' })),
      ),
    );

    expect(statements.slice(1)).toEqual([
      expect.stringMatching(FENCED_BEGIN),
      expect.stringMatching(BATCH_STATEMENT),
      expect.stringMatching(BATCH_STATEMENT),
      expect.stringMatching(ONE_STATEMENT),
      'COMMIT',
    ]);
    expect((await repository.list('order-1')).map(({ seq, digest }) => [seq, digest])).toEqual([
      [1, 'digest-order-1-1'],
      [2, 'digest-order-1-2'],
      [3, 'digest-order-1-3'],
    ]);
    expect((await repository.list('order-2')).map(({ seq }) => seq)).toEqual([1, 2]);
  });

  it('should give each put of a batch mixing ones left to the full rules (a replay, a child before its parent, a stale parent) with good ones its own outcome', async () => {
    const counted = await open();
    const { repository } = counted;
    await repository.put(checkpoint('order-1', 1));
    await repository.put(checkpoint('order-1', 2));

    // A replay (left to the full rules, which store nothing) and a child put before its parent in the batch
    // (left undecided by the statement, then stored by the full rules after it, as the parent is by then).
    const kept = await sent(counted, () =>
      atOnce(
        () => repository.put(checkpoint('other', 1)),
        () => repository.put(checkpoint('child', 1, { parentId: 'parent', callNodeId: 'call' })),
        () => repository.put(checkpoint('order-1', 2)),
        () => repository.put(checkpoint('parent', 1)),
      ),
    );
    // A stale parent: refused, so the batch is rolled back and each put runs again alone.
    const refusedInBatch = await sent(counted, () =>
      Promise.allSettled([
        repository.put(checkpoint('other', 2)),
        repository.put(checkpoint('good-1', 1)),
        repository.put({ ...checkpoint('order-1', 3), parentSeq: 1, digest: 'other' }),
        repository.put(checkpoint('good-2', 1)),
      ]),
    );

    expect(kept.value).toEqual([undefined, undefined, undefined, undefined]);
    // One statement, then the full rules of the two it left undecided, committed with it.
    expect(kept.statements.filter((text) => BATCH_STATEMENT.test(text))).toHaveLength(1);
    expect(kept.statements.slice(1, 3)).toEqual([
      expect.stringMatching(FENCED_BEGIN),
      expect.stringMatching(BATCH_STATEMENT),
    ]);
    expect(kept.statements.at(-1)).toBe('COMMIT');
    expect((await repository.get('child'))?.seq).toBe(1);
    const outcomes = refusedInBatch.value;
    expect(outcomes.map(({ status }) => status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    expect(refusedInBatch.statements).toContain('ROLLBACK');
    expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1, 2]);
    expect((await repository.get('good-1'))?.seq).toBe(1);
    expect((await repository.get('good-2'))?.seq).toBe(1);
  });

  it('should check the deployments a first put was chosen among in its one statement, alone and in a batch, leaving a stale one to the full rules', async () => {
    const counted = await open();
    const { repository } = counted;
    const deploy = (digest: string) =>
      repository.putDeployment({ definitionId: 'order-fulfilment', digest, xml: '<definitions/>', deployedAt: 1 });
    await deploy('digest-1');

    // Chosen among the one deployment stored: one statement, stored with its claim.
    const current = await sent(counted, () =>
      repository.put({
        ...checkpoint('order-1', 1),
        deploymentsSeen: 1,
        claim: { owner: 'node-a', ttlMs: 1000, now: 0 },
      }),
    );
    await deploy('digest-2');
    // Chosen before the second deployment: the statement leaves it, the full rules refuse it.
    const stale = await refused(counted, () => repository.put({ ...checkpoint('order-2', 1), deploymentsSeen: 1 }));
    // In a batch: the current ones stored, the stale one refused alone.
    const batch = await sent(counted, () =>
      Promise.allSettled([
        repository.put({ ...checkpoint('order-3', 1), deploymentsSeen: 2 }),
        repository.put({ ...checkpoint('order-4', 1), deploymentsSeen: 2 }),
        repository.put({ ...checkpoint('order-5', 1), deploymentsSeen: 1 }),
        repository.put({ ...checkpoint('order-6', 1), deploymentsSeen: 2 }),
      ]),
    );

    expect(current.statements).toEqual([expect.stringMatching(ONE_STATEMENT)]);
    expect(current.value).toMatchObject({ instanceId: 'order-1', owner: 'node-a' });
    expect(stale.error).toBeInstanceOf(StaleDeploymentsError);
    expect(stale.error).toMatchObject({ seen: 1, stored: 2 });
    expect(stale.statements[0]).toMatch(ONE_STATEMENT);
    expect(stale.statements[1]).toMatch(FENCED_BEGIN);
    expect(stale.statements.at(-1)).toBe('ROLLBACK');
    // The batch counts the deployments once, then sends the current puts to the statement without their count.
    const countAt = batch.statements.findIndex((text) => /^SELECT count\(\*\) AS stored FROM/.test(text));
    expect(countAt).toBeGreaterThan(0);
    expect(batch.statements[countAt + 1]).toMatch(BATCH_STATEMENT);
    expect(batch.value.map(({ status }) => status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((batch.value[2] as PromiseRejectedResult).reason).toBeInstanceOf(StaleDeploymentsError);
    expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual([
      'order-1',
      'order-3',
      'order-4',
      'order-6',
    ]);
  });

  it('should keep a putWrites between two puts of a batch in its place: after the first, before the second', async () => {
    const counted = await open();
    const { repository } = counted;
    await repository.put(checkpoint('order-1', 1));
    const entry = { taskId: 'task', index: 0, value: utf8('done') };

    const { statements } = await sent(counted, () =>
      atOnce<unknown>(
        () => repository.put(checkpoint('other', 1)),
        () => repository.put(checkpoint('order-1', 2)),
        () => repository.put(checkpoint('order-2', 1)),
        () => repository.putWrites('order-1', 2, [entry]),
        () => repository.put(checkpoint('order-1', 3)),
        () => repository.put(checkpoint('order-3', 1)),
      ),
    );

    // The journal entries were filed at seq 2, which was the latest then: seq 3 came after.
    const kinds = statements.map((text) => (BATCH_STATEMENT.test(text) ? 'puts' : /^INSERT INTO .*writes/.test(text)));
    expect(kinds.filter((kind) => kind !== false)).toEqual(['puts', true, 'puts']);
    expect(statements).not.toContain('ROLLBACK');
    expect((await repository.get('order-1', 2))?.writes).toEqual([entry]);
    expect((await repository.get('order-1'))?.seq).toBe(3);
  });

  it('should commit releases issued together in one statement, each releasing only its own lease', async () => {
    const counted = await open();
    const { repository } = counted;
    const ids = Array.from({ length: 20 }, (_, i) => `order-${i}`);
    for (const id of ids) await repository.put(checkpoint(id, 1));
    const leases = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 100 });
    // a release with a stale token lets go of nothing
    const stale = { ...leases[0]!, token: leases[0]!.token - 1 };

    const { statements } = await sent(counted, () =>
      atOnce<unknown>(
        () => repository.release(leases[1]!),
        ...leases.slice(2).map((lease) => () => repository.release(lease)),
        () => repository.release(stale),
      ),
    );

    // the first runs alone, the 19 that came meanwhile together: each one statement (release_leases), no transaction
    expect(statements).toEqual([expect.stringMatching(RELEASE_STATEMENT), expect.stringMatching(RELEASE_STATEMENT)]);
    expect(await repository.lease('order-0')).toEqual(leases[0]);
    for (const lease of leases.slice(1)) expect(await repository.lease(lease.instanceId)).toBeUndefined();
  });

  it('should not hold up a put of another instance behind a release in flight: releases queue apart from the writes', async () => {
    let releasing!: () => void;
    const held = new Promise<void>((resolve) => {
      releasing = resolve;
    });
    let reached!: () => void;
    const releaseSent = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const counted = await open({
      before: async (text) => {
        if (!RELEASE_STATEMENT.test(text.trim())) return;
        reached();
        await held;
      },
    });
    const { repository } = counted;
    await repository.put(checkpoint('order-1', 1));
    const [lease] = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 1 });

    // given the release of order-1 on its way to the store, held there
    const release = repository.release(lease!);
    await releaseSent;
    // when another instance's first put comes, then it is stored while the release is still held
    expect(await repository.put(checkpoint('order-2', 1))).toBeUndefined();
    expect(await repository.lease('order-1')).toEqual(lease);
    releasing();
    await release;
    expect(await repository.lease('order-1')).toBeUndefined();
    expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['order-1', 'order-2']);
  });

  it('should commit renewals issued together in one transaction, and refuse only a lease no longer held', async () => {
    const counted = await open();
    const { repository } = counted;
    for (const id of Array.from({ length: 20 }, (_, i) => `order-${i}`)) await repository.put(checkpoint(id, 1));
    const leases = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 100 });
    await repository.release(leases[5]!);

    const { value: outcomes, statements } = await sent(counted, () =>
      Promise.allSettled(leases.map((lease) => repository.renew(lease, 60_000, 1_000))),
    );

    // the first alone, the 19 that came meanwhile in one transaction, which commits: the released lease's
    // renewal wrote nothing and is refused alone
    expect(outcomes[5]).toMatchObject({ status: 'rejected', reason: { name: 'LeaseLostError' } });
    for (const [index, lease] of leases.entries()) {
      if (index === 5) continue;
      expect(outcomes[index]).toEqual({ status: 'fulfilled', value: { ...lease, expiresAt: 61_000 } });
      expect(await repository.lease(lease.instanceId)).toEqual({ ...lease, expiresAt: 61_000 });
    }
    expect(statements).not.toContain('ROLLBACK');
    expect(statements.filter((text) => text === 'COMMIT')).toHaveLength(2);
  });

  it('should commit renewals of leases all still held in one transaction after the first', async () => {
    const counted = await open();
    const { repository } = counted;
    for (const id of Array.from({ length: 20 }, (_, i) => `order-${i}`)) await repository.put(checkpoint(id, 1));
    const leases = await repository.claim({ owner: 'node-a', ttlMs: 60_000, now: 0, limit: 100 });

    const { statements } = await sent(counted, () =>
      Promise.all(leases.map((lease) => repository.renew(lease, 60_000, 1_000))),
    );

    expect(statements.filter((text) => text === 'COMMIT')).toHaveLength(2);
  });
});
