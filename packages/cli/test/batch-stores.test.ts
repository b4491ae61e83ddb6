import type { Repository, RowSearch } from '@thresher/checkpoint';
import { Engine } from '@thresher/engine';
import { BatchRunner, readBatch, SearchProjection, startBatch } from '@thresher/rest';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openStore, parseStoreUrl } from '../src/store.js';
import { PG_URL, TestSchemas, Workspace } from './helpers.js';

/**
 * The batch operation record on every store: made once, claimed by one runner at a time, taken over once a claim
 * runs out, each item finished once and counted once, while two runners (two engines) share it.
 */
const workspace = new Workspace();
const schemas = new TestSchemas('thresher_batch_store');
const open: Repository[] = [];
afterEach(async () => {
  for (const repository of open.splice(0)) await repository.close();
  await schemas.drop();
});
afterAll(() => workspace.remove());

const WAITING = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-w" targetNamespace="t">
  <bpmn:process id="w" isExecutable="true">
    <bpmn:startEvent id="s" /><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review" />
    <bpmn:userTask id="review" /><bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e" /><bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

/** A batch cancelling `count` instances of WAITING the engine starts, as the projection finds them; its key. */
async function cancelBatchOver(engine: Engine, repository: Repository, count: number): Promise<string> {
  await engine.deploy(WAITING);
  for (let n = 0; n < count; n++) await engine.start('w');
  const projection = new SearchProjection(engine, repository);
  await projection.caughtUp();
  await projection.close();
  const made = await startBatch(repository, { type: 'CANCEL_PROCESS_INSTANCE' }, { processDefinitionId: 'w' });
  return made.batchOperationKey;
}

const STORES: [string, () => string][] = [
  ['memory', () => 'memory:'],
  ['SQLite', () => `sqlite:${workspace.path(`batch-${Math.random().toString(36).slice(2)}.db`)}`],
  ...(PG_URL === undefined ? [] : ([['PostgreSQL', () => schemas.store()]] as [string, () => string][])),
];

describe.each(STORES)('the batch operation record on %s', (_name, url) => {
  it('should have two runners on two engines finish each item once, one runner claim-less after its claim ran out', async () => {
    const spec = parseStoreUrl(url(), workspace.dir);
    const repository = await openStore(spec, { create: true });
    open.push(repository);
    // Two engines on one store (memory: one repository object, as two engines of one process would share it).
    const first = new Engine({ repository, owner: 'first' });
    const second = new Engine({ repository, owner: 'second' });
    const key = await cancelBatchOver(first, repository, 40);
    // A runner that claims a chunk and dies: its claim runs out (1 ms) and the others take its items.
    const dead = new BatchRunner(first, repository, { owner: 'dead', claimTtlMs: 1, chunk: 5 });
    const claimedByDead = await (dead as unknown as { claim(key: string): Promise<unknown[]> }).claim(key);
    expect(claimedByDead).toHaveLength(5);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Both run as a server runs them, looking for work again every few ms: an item one of them gave back (its
    // instance held by the other engine) is the other's to take.
    const runners = [
      new BatchRunner(first, repository, { owner: 'one', chunk: 7, pollMs: 10 }),
      new BatchRunner(second, repository, { owner: 'two', chunk: 7, pollMs: 10 }),
    ];
    for (const runner of runners) runner.start();
    let read = (await readBatch(repository, key))!;
    for (let n = 0; n < 1000 && read.batch.state === 'ACTIVE'; n++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      read = (await readBatch(repository, key))!;
    }
    await Promise.all(runners.map((runner) => runner.close()));

    expect(read.batch).toMatchObject({
      state: 'COMPLETED',
      operationsTotalCount: 40,
      operationsCompletedCount: 40,
      operationsFailedCount: 0,
    });
    expect(read.items.map((item) => item.state)).toEqual(read.items.map(() => 'COMPLETED'));
    const statuses = await Promise.all(
      (await repository.instances({ limit: 100 })).map(async (one) => (await first.instance(one.instanceId))!.status),
    );
    expect(new Set(statuses)).toEqual(new Set(['terminated']));
    await first.close();
    await second.close();
  });

  it("should have a runner read a chunk's items to claim and finish them, not the whole batch", async () => {
    const repository = await openStore(parseStoreUrl(url(), workspace.dir), { create: true });
    open.push(repository);
    const engine = new Engine({ repository });
    const key = await cancelBatchOver(engine, repository, 60);
    let itemRowsRead = 0;
    const counting = new Proxy(repository, {
      get(target, property) {
        if (property !== 'searchRows') {
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (search: RowSearch) => {
          const page = await target.searchRows(search);
          if (search.kind === 'batchOperationItem') itemRowsRead += page.rows.length;
          return page;
        };
      },
    });
    const runner = new BatchRunner(engine, counting, { chunk: 5 });
    const perChunk: number[] = [];
    for (;;) {
      itemRowsRead = 0;
      if (!(await runner.runOnce())) break;
      perChunk.push(itemRowsRead);
    }
    await runner.close();

    // A claim reads at most a chunk of unclaimed items and a chunk whose claim ran out; a finish the chunk's items and
    // one more left to do than it finished: 4 × 5 + 1, where the whole batch is 60.
    expect(perChunk).toHaveLength(12);
    expect(Math.max(...perChunk)).toBeLessThanOrEqual(21);
    const read = (await readBatch(repository, key))!;
    expect(read.batch).toMatchObject({ state: 'COMPLETED', operationsCompletedCount: 60 });
    expect(read.items.filter((item) => item.state === 'COMPLETED')).toHaveLength(60);
    await engine.close();
  });

  it('should make a batch matching nothing completed at once, written at its first version', async () => {
    const repository = await openStore(parseStoreUrl(url(), workspace.dir), { create: true });
    open.push(repository);
    const engine = new Engine({ repository });
    const made = await startBatch(repository, { type: 'CANCEL_PROCESS_INSTANCE' }, {});
    const read = (await readBatch(repository, made.batchOperationKey))!;

    expect(read.batch).toMatchObject({ state: 'COMPLETED', operationsTotalCount: 0 });
    expect(read.version).toBe('1');
    await engine.close();
  });
});
