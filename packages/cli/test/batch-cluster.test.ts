import { afterEach, describe, expect, it } from 'vitest';
import { deployAndCreate, PG_URL, postJson, serveOn, type spawnThresher, TestSchemas, Workspace } from './helpers.js';

/**
 * A batch cancellation of 500 instances made on one `thresher serve` of two sharing a PostgreSQL store; that server
 * SIGKILLed halfway: the other takes the batch up (the dead one's claims once they run out) and every instance is
 * cancelled, each item recorded done exactly once.
 */
const NO_SERVER = PG_URL === undefined ? ' (skipped: THRESHER_PG_URL is not set, so there is no server)' : '';

const INSTANCES = 500;

const WAITING = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="defs-waiting" targetNamespace="t">
  <bpmn:process id="waiting" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review" />
    <bpmn:userTask id="review" />
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>`;

const workspace = new Workspace();
const schemas = new TestSchemas('thresher_batch');
const servers: Array<ReturnType<typeof spawnThresher>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) server.child.kill('SIGKILL');
  await schemas.drop();
});

const serve = (store: string) => serveOn(workspace, store, servers);
const post = postJson;

interface Batch {
  batchOperationKey: string;
  state: string;
  operationsTotalCount: number;
  operationsCompletedCount: number;
  operationsFailedCount: number;
}

async function batchOn(url: string, key: string): Promise<Batch> {
  return (await (await fetch(`${url}/batch-operations/${key}`)).json()) as Batch;
}

describe('a batch operation shared by two thresher serve processes on one PostgreSQL', () => {
  it.skipIf(PG_URL === undefined)(
    `should cancel each of ${INSTANCES} instances once, the server that began it SIGKILLed halfway${NO_SERVER}`,
    { timeout: 180_000 },
    async () => {
      const store = schemas.store();
      const a = await serve(store);
      const b = await serve(store);
      const keys = await deployAndCreate([a.url, b.url], WAITING, 'waiting', INSTANCES);

      const made = await post(`${a.url}/process-instances/cancellation`, {
        filter: { processDefinitionId: 'waiting' },
      });
      expect(made.status).toBe(200);
      const { batchOperationKey } = (await made.json()) as Batch;
      // A goes down with half the batch done and a claim of its own in hand.
      for (let batch = await batchOn(a.url, batchOperationKey); batch.operationsCompletedCount < INSTANCES / 2; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        batch = await batchOn(a.url, batchOperationKey);
      }
      a.child.kill('SIGKILL');
      await a.exit;

      const deadline = Date.now() + 120_000;
      let batch = await batchOn(b.url, batchOperationKey);
      while (batch.state !== 'COMPLETED' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        batch = await batchOn(b.url, batchOperationKey);
      }
      expect(batch).toMatchObject({
        state: 'COMPLETED',
        operationsTotalCount: INSTANCES,
        operationsCompletedCount: INSTANCES,
        operationsFailedCount: 0,
      });
      const items = await post(`${b.url}/batch-operation-items/search`, {
        filter: { batchOperationKey },
        page: { limit: 1000 },
      });
      const found = (await items.json()) as { items: { itemKey: string; state: string }[] };
      expect(found.items.map((item) => item.itemKey).sort()).toEqual([...keys].sort());
      expect(found.items.every((item) => item.state === 'COMPLETED')).toBe(true);
      // Every instance is terminated, as the store has it (a read by key is never behind).
      const states = await Promise.all(
        keys.map(
          async (key) => ((await (await fetch(`${b.url}/process-instances/${key}`)).json()) as { state: string }).state,
        ),
      );
      expect(new Set(states)).toEqual(new Set(['TERMINATED']));
    },
  );
});
