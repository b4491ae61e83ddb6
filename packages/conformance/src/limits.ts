import { MAX_DOCUMENT_BYTES, MAX_TEXT_BYTES, type PutCheckpoint, type Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { binaryBytes, checkpoint, contractTest, expectBytes, expectStored, putChain, write } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';
import { expectLimitExceeded, fullChild, PUT_TEXT_FIELDS, textOfBytes, visibleState } from './write-rule-fixtures.js';

/** Text of exactly the limit, and of one byte more, both starting with `seed`. */
const atLimit = (seed: string) => textOfBytes(MAX_TEXT_BYTES, seed);
const pastLimit = (seed: string) => textOfBytes(MAX_TEXT_BYTES + 1, seed);

const message = (overrides: Record<string, unknown> = {}) => ({
  id: 'm-1',
  name: 'paid',
  correlationKey: 'A-1001',
  variables: new Uint8Array(0),
  publishedAt: 1_000,
  expiresAt: 10_000,
  ...overrides,
});

/**
 * The declared limits, the same on every backend: text fields of at most `MAX_TEXT_BYTES` UTF-8 bytes (what
 * PostgreSQL's btree holds in its widest index), and documents, journal values, message variables and XML of
 * at most `MAX_DOCUMENT_BYTES`. At the limit is taken and returned verbatim; a byte past it is refused whole.
 */
export function describeLimits<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
) {
  const test = contractTest(initializer, 'limits.ts');

  describe('declared limits', () => {
    test('TH-LIMIT-01', async (repository) => {
      // The parent field names a stored instance: put one whose id is at the limit too.
      const parentId = atLimit('P');
      await repository.put({ ...checkpoint(parentId, 1), digest: 'digest-of-the-parent' });

      for (const [i, [path, set]] of PUT_TEXT_FIELDS.entries()) {
        const id = `child-${i}`;
        const text = path === 'meta.parentId' ? parentId : atLimit(`${i}`);
        const child = set(fullChild(id, parentId), text);
        await repository.put(child);

        expectStored(await repository.get(child.instanceId), child);
        const [summary] = (await repository.instances()).filter(({ instanceId }) => instanceId === child.instanceId);
        expect(summary).toMatchObject({ ...child.meta, instanceId: child.instanceId });
      }
      const name = atLimit('name');
      const key = atLimit('key');
      await repository.put(subscribed('subscriber', name, key));
      expect(await repository.subscriptions(name, key)).toEqual(['subscriber']);
    });

    test('TH-LIMIT-02', async (repository) => {
      await putChain(repository, 'root', 1);
      const before = await visibleState(repository, ['paid']);

      for (const [i, [path, set]] of PUT_TEXT_FIELDS.entries()) {
        await expectLimitExceeded(
          repository.put(set(fullChild(`child-${i}`, 'root'), pastLimit(`${i}`))),
          path,
          MAX_TEXT_BYTES + 1,
          MAX_TEXT_BYTES,
        );
      }

      expect(await visibleState(repository, ['paid'])).toEqual(before);
    });

    test('TH-LIMIT-03', async (repository) => {
      await putChain(repository, 'root', 1);
      const long = 'k'.repeat(20_000);
      const base = fullChild('child', 'root');

      for (const path of ['instanceId', 'meta.businessKey', 'meta.subscriptions[1].key']) {
        const set = PUT_TEXT_FIELDS.find(([field]) => field === path)![1];
        await expectLimitExceeded(repository.put(set(base, long)), path, 20_000, MAX_TEXT_BYTES);
      }
      await expectLimitExceeded(
        repository.putMessage(message({ correlationKey: long })),
        'message.correlationKey',
        20_000,
        MAX_TEXT_BYTES,
      );

      expect((await repository.instances()).map(({ instanceId }) => instanceId)).toEqual(['root']);
    });

    test('TH-LIMIT-04', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const taskId = atLimit('t');
      const owner = atLimit('o');
      const taker = atLimit('k');

      await expectLimitExceeded(
        repository.putWrites('order-1', 1, [write(pastLimit('t'), 0, 'x')]),
        'writes[0].taskId',
        MAX_TEXT_BYTES + 1,
        MAX_TEXT_BYTES,
      );
      const limits = { ttlMs: 1_000, now: 0, limit: 1 };
      await expectLimitExceeded(repository.claim({ ...limits, owner: pastLimit('o') }), 'owner', 513, 512);
      await repository.putMessage(message());
      await expectLimitExceeded(repository.takeMessage('paid', 'A-1001', 0, pastLimit('k')), 'taker', 513, 512);

      await repository.putWrites('order-1', 1, [write(taskId, 0, 'x')]);
      expect((await repository.get('order-1'))?.writes.map((entry) => entry.taskId)).toEqual([taskId]);
      expect(await repository.claim({ ...limits, owner })).toMatchObject([{ instanceId: 'order-1', owner }]);
      expect((await repository.takeMessage('paid', 'A-1001', 0, taker))?.id).toBe('m-1');
      expect((await repository.takeMessage('paid', 'A-1001', 20_000, taker))?.id).toBe('m-1');
    });

    test('TH-LIMIT-05', async (repository) => {
      const at = { id: atLimit('i'), name: atLimit('n'), correlationKey: atLimit('c') };
      for (const field of ['id', 'name', 'correlationKey'] as const) {
        await expectLimitExceeded(
          repository.putMessage(message({ ...at, [field]: pastLimit(field) })),
          `message.${field}`,
          513,
          512,
        );
      }
      const deployment = { definitionId: atLimit('d'), digest: atLimit('g'), xml: '<definitions/>', deployedAt: 1 };
      await expectLimitExceeded(
        repository.putDeployment({ ...deployment, definitionId: pastLimit('d') }),
        'definitionId',
        513,
        512,
      );
      await expectLimitExceeded(
        repository.putDeployment({ ...deployment, digest: pastLimit('g') }),
        'digest',
        513,
        512,
      );

      expect(await repository.putMessage(message(at))).toBe(true);
      expect(await repository.takeMessage(at.name, at.correlationKey, 0, 'order-1')).toMatchObject(at);
      await repository.putDeployment(deployment);
      expect(await repository.getDeployment(deployment.digest)).toMatchObject({ ...deployment, version: 1 });
      expect(await repository.deployments(deployment.definitionId)).toHaveLength(1);
    });

    test('TH-LIMIT-06', async (repository) => {
      const bytes = binaryBytes(MAX_DOCUMENT_BYTES + 1);
      const tooLong = checkpoint('order-1', 1, { bytes });

      await expectLimitExceeded(repository.put(tooLong), 'bytes', MAX_DOCUMENT_BYTES + 1, MAX_DOCUMENT_BYTES);
      expect(await repository.get('order-1')).toBeUndefined();

      const atMost = checkpoint('order-1', 1, { bytes: bytes.slice(0, MAX_DOCUMENT_BYTES) });
      await repository.put(atMost);
      expectBytes((await repository.get('order-1'))?.bytes, atMost.bytes);
    });

    test('TH-LIMIT-07', async (repository) => {
      await putChain(repository, 'order-1', 1);
      const bytes = binaryBytes(MAX_DOCUMENT_BYTES + 1);
      const value = bytes.slice(0, MAX_DOCUMENT_BYTES);

      await expectLimitExceeded(
        repository.putWrites('order-1', 1, [
          { taskId: 'small', index: 0, value: bytes.slice(0, 1) },
          { taskId: 'big', index: 0, value: bytes },
        ]),
        'writes[1].value',
        MAX_DOCUMENT_BYTES + 1,
        MAX_DOCUMENT_BYTES,
      );
      expect((await repository.get('order-1'))?.writes).toEqual([]);

      await repository.putWrites('order-1', 1, [{ taskId: 'big', index: 0, value }]);
      expectBytes((await repository.get('order-1'))?.writes[0]?.value, value);
    });

    test('TH-LIMIT-08', async (repository) => {
      const bytes = binaryBytes(MAX_DOCUMENT_BYTES + 1);
      const variables = bytes.slice(0, MAX_DOCUMENT_BYTES);

      await expectLimitExceeded(
        repository.putMessage(message({ variables: bytes })),
        'message.variables',
        MAX_DOCUMENT_BYTES + 1,
        MAX_DOCUMENT_BYTES,
      );
      expect(await repository.takeMessage('paid', 'A-1001', 0, 'order-1')).toBeUndefined();

      await repository.putMessage(message({ variables }));
      expectBytes((await repository.takeMessage('paid', 'A-1001', 0, 'order-1'))?.variables, variables);
    });

    test('TH-LIMIT-09', async (repository) => {
      // Mostly three-byte characters: a count of characters would be a third of the count of bytes.
      const frame = '<definitions></definitions>'.length;
      const euros = Math.floor((MAX_DOCUMENT_BYTES - frame) / 3);
      const padding = 'a'.repeat(MAX_DOCUMENT_BYTES - frame - 3 * euros);
      const xml = `<definitions>${'\u20AC'.repeat(euros)}${padding}</definitions>`;
      const deployment = { definitionId: 'order', digest: 'd-1', xml, deployedAt: 1 };

      await expectLimitExceeded(
        repository.putDeployment({ ...deployment, xml: `${xml} ` }),
        'xml',
        MAX_DOCUMENT_BYTES + 1,
        MAX_DOCUMENT_BYTES,
      );
      expect(await repository.deployments()).toEqual([]);

      await repository.putDeployment(deployment);
      expect((await repository.getDeployment('d-1'))?.xml === xml).toBe(true);
    });
  });
}

/** A root instance waiting on one message with a key. */
function subscribed(instanceId: string, name: string, key: string): PutCheckpoint {
  return checkpoint(instanceId, 1, { meta: { subscriptions: [{ name, key }] } });
}
