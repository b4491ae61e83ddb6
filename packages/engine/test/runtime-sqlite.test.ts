import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteRepository } from '@thresher/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine.js';
import { orderHandlers, orderXml } from './fixtures/order.js';

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'thresher-runtime-sqlite-'));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('order fulfilment on SQLite', () => {
  it('should park at approval, survive closing the engine and the file, and complete after recover', async () => {
    // given an order parked at the approval user task on a SQLite file
    const path = join(directory, 'thresher.db');
    const firstRepository = createSqliteRepository({ path });
    const first = new Engine({ repository: firstRepository, handlers: orderHandlers, backoff: () => 0 });
    await first.deploy(orderXml);
    const id = await first.start('order-fulfilment', {
      variables: { orderId: 'A-1', total: 120, express: true, gift: true },
    });
    const parked = await first.settled(id);
    if (parked.status !== 'waiting') throw new Error(`expected waiting, got ${parked.status}`);
    expect(parked.userTasks.map((task) => task.elementId)).toEqual(['approve']);
    expect(parked.incidents).toEqual([]);

    // when the engine and the repository close and a new pair opens the same file and recovers
    await first.close();
    await firstRepository.close();
    const repository = createSqliteRepository({ path });
    const second = new Engine({ repository, handlers: orderHandlers, backoff: () => 0 });
    try {
      const report = await second.recover();
      expect(report).toEqual({ restored: [id], failed: [] });
      const [task] = await second.userTasks({ instanceId: id });
      expect(task).toMatchObject({ id: parked.userTasks[0]!.id, elementId: 'approve' });
      await second.completeUserTask(task!.id, { approved: true });

      // then the order completes with its tracking number
      expect((await second.settled(id)).status).toBe('completed');
      const view = (await second.instance(id))!;
      expect(view.status).toBe('completed');
      expect(view.variables).toMatchObject({
        orderId: 'A-1',
        approved: true,
        trackingNumber: 'TRK-A-1',
        courier: 'express',
        giftNote: 'Gift for order A-1',
      });
      expect(await repository.instances({ status: 'completed' })).toHaveLength(1);
    } finally {
      await second.close();
      await repository.close();
    }
  });
});
