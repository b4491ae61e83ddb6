import {
  ConflictError,
  type MessageSubscription,
  type PendingWrite,
  type PutCheckpoint,
  type Repository,
} from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import {
  checkpoint,
  contractTest,
  expectStored,
  expectWrites,
  putChain,
  rejectionOf,
  utf8,
  write,
} from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';
import { expectUnencodable, fullChild, visibleState } from './write-rule-fixtures.js';

const message = (id: string, variables: unknown = utf8('{}')) => ({
  id,
  name: 'paid',
  correlationKey: 'A-1001',
  variables: variables as Uint8Array,
  publishedAt: 1_000,
  expiresAt: 10_000,
});

/** Every call is all or nothing: a refusal, wherever in the call it is found, leaves the store as it was. */
export function describeAtomicity<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'atomicity.ts');

  describe('all or nothing', () => {
    test('TH-ATOMIC-01', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const malformed = [{ name: 'paid', key: null }, null] as unknown as MessageSubscription[];

      await expectUnencodable(
        repository.put(checkpoint('order-1', 2, { meta: { subscriptions: malformed } })),
        'meta.subscriptions[1]',
      );

      expect((await repository.list('order-1')).map(({ seq }) => seq)).toEqual([1]);
      // The retry has the very bytes of the refused put: it must be stored, not taken for a replay.
      const retry = checkpoint('order-1', 2, { meta: { subscriptions: [{ name: 'paid', key: null }] } });
      await repository.put(retry);
      expectStored(await repository.get('order-1'), retry);
      expect(await repository.subscriptions('paid', null)).toEqual(['order-1']);
      await repository.put(checkpoint('order-1', 3));
      expect((await repository.get('order-1'))?.seq).toBe(3);
    });

    test('TH-ATOMIC-02', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const good = [write('charge', 0, 'paid'), write('ship', 0, 'sent')];
      const refused: [PendingWrite, string][] = [
        [{ taskId: 'audit', index: 0, value: 'not bytes' as unknown as Uint8Array }, 'writes[2].value'],
        [write('audit\u0000', 0, 'done'), 'writes[2].taskId'],
      ];

      for (const [third, path] of refused) {
        await expectUnencodable(repository.putWrites('order-1', 1, [...good, third]), path);
        expect((await repository.get('order-1'))?.writes).toEqual([]);
      }

      const whole = [...good, write('audit', 0, 'done')];
      await repository.putWrites('order-1', 1, whole);
      expectWrites((await repository.get('order-1'))!.writes, whole);
    });

    test('TH-ATOMIC-03', async (repository) => {
      await putChain(repository, 'root', 1);
      const before = await visibleState(repository, ['paid', 'shipped']);
      const child = fullChild('child', 'root');
      const bad = {
        ...child,
        meta: { ...child.meta, subscriptions: [...child.meta.subscriptions, { name: 'x\uD800', key: null }] },
      };

      await expectUnencodable(repository.put(bad), 'meta.subscriptions[2].name');

      expect(await repository.get('child')).toBeUndefined();
      expect(await visibleState(repository, ['paid', 'shipped'])).toEqual(before);
      const leases = await repository.claim({ owner: 'node-1', ttlMs: 1_000, now: 0, limit: 10 });
      expect(leases.map(({ instanceId }) => instanceId)).toEqual(['root']);
    });

    test('TH-ATOMIC-04', async (repository) => {
      await putChain(repository, 'root', 1);
      await repository.put(fullChild('child', 'root'));
      const before = await visibleState(repository, ['paid', 'shipped']);
      const next = checkpoint('child', 2, { meta: { parentId: 'root', callNodeId: 'call_billing', dueAt: 1 } });

      await expectUnencodable(
        repository.put({ ...next, meta: { ...next.meta, businessKey: 'B\u0000' } }),
        'meta.businessKey',
      );

      expect(await visibleState(repository, ['paid', 'shipped'])).toEqual(before);
      expect(await repository.subscriptions('shipped', 'A-1001')).toEqual(['child']);
      expect(await repository.dueTimers(Number.MAX_SAFE_INTEGER, 10)).toEqual([{ instanceId: 'child', dueAt: 5_000 }]);
    });

    test('TH-ATOMIC-05', async (repository) => {
      await expectUnencodable(repository.putMessage(message('m-1', [1, 2])), 'message.variables');
      await expectUnencodable(
        repository.putDeployment({ definitionId: 'order', digest: 'd\uDFFF', xml: '<definitions/>', deployedAt: 1 }),
        'digest',
      );

      expect(await repository.takeMessage('paid', 'A-1001', 2_000, 'order-1')).toBeUndefined();
      expect(await repository.putMessage(message('m-1'))).toBe(true);
      expect(await repository.deployments()).toEqual([]);
      const deployed = await repository.putDeployment({
        definitionId: 'order',
        digest: 'd-1',
        xml: '<definitions/>',
        deployedAt: 1,
      });
      expect(deployed.version).toBe(1);
    });

    test('TH-ATOMIC-06', async (repository) => {
      await putChain(repository, 'order-1', 1);

      await expectUnencodable(repository.claim({ owner: 'node\u0000', ttlMs: 1_000, now: 0, limit: 10 }), 'owner');

      await repository.put(checkpoint('order-1', 2));
      const [lease] = await repository.claim({ owner: 'node-2', ttlMs: 1_000, now: 0, limit: 10 });
      expect(lease).toMatchObject({ instanceId: 'order-1', owner: 'node-2' });
    });

    test('TH-ATOMIC-07', async (repository) => {
      const [first] = await putChain(repository, 'order-1', 1);
      const rewrite = {
        instanceId: 'order-1',
        seq: 1,
        expectedDigest: first!.digest,
        schema: 2,
        digest: 'migrated',
        bytes: utf8('{"migrated":true}'),
      };

      await expectUnencodable(repository.rewrite({ ...rewrite, digest: 'migrated\uD800' }), 'digest');
      await expectUnencodable(repository.rewrite({ ...rewrite, bytes: 'x' as unknown as Uint8Array }), 'bytes');

      expectStored(await repository.get('order-1'), first!);
      await repository.rewrite(rewrite);
      expect((await repository.get('order-1'))?.digest).toBe('migrated');
    });

    test('TH-ATOMIC-08', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const before = await visibleState(repository);
      const next = checkpoint('order-1', 2);
      const puts: [PutCheckpoint, unknown][] = [
        [{ ...next, instanceId: 42 as unknown as string }, 'instanceId'],
        [{ ...next, seq: 2.5 }, RangeError],
        [{ ...next, schema: 0 }, RangeError],
        [{ ...next, meta: { ...next.meta, dueAt: Number.NaN } }, RangeError],
        [{ ...next, meta: { ...next.meta, processId: undefined as unknown as string } }, 'meta.processId'],
      ];

      for (const [refused, expected] of puts) {
        if (typeof expected === 'string') await expectUnencodable(repository.put(refused), expected);
        else expect(await rejectionOf(repository.put(refused))).toBeInstanceOf(RangeError);
      }
      const fractional = { taskId: 'charge', index: 0.5, value: utf8('paid') };
      expect(await rejectionOf(repository.putWrites('order-1', 1, [fractional]))).toBeInstanceOf(RangeError);
      const deployment = { definitionId: 'order', digest: 'd-1', xml: '<definitions/>', deployedAt: 1.5 };
      expect(await rejectionOf(repository.putDeployment(deployment))).toBeInstanceOf(RangeError);

      expect(await visibleState(repository)).toEqual(before);
      expect(await repository.deployments()).toEqual([]);
    });

    test('TH-ATOMIC-09', async (repository) => {
      await putChain(repository, 'order-2', 1);

      // issued together, as instances reaching a persist point at once do (a store may commit them as one)
      const together = [
        repository.put(checkpoint('order-1', 1)),
        repository.put(checkpoint('order-2', 1, { note: 'other bytes' })),
        repository.putWrites('order-2', 1, [write('charge', 0, 'paid')]),
        repository.put(checkpoint('order-2', 3, { parentSeq: 2 })),
        repository.put(checkpoint('order-3', 1)),
      ];
      const outcomes = await Promise.all(
        together.map((promise) =>
          promise.then(
            () => 'ok',
            (error: unknown) => (error instanceof ConflictError ? 'ConflictError' : String(error)),
          ),
        ),
      );

      expect(outcomes).toEqual(['ok', 'ConflictError', 'ok', 'ConflictError', 'ok']);
      expect((await repository.list('order-2')).map(({ seq }) => seq)).toEqual([1]);
      expectWrites((await repository.get('order-2'))!.writes, [write('charge', 0, 'paid')]);
      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual([
        'order-1',
        'order-2',
        'order-3',
      ]);
    });
  });
}
