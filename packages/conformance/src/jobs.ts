import type { JobActivation, JobOffer, Repository } from '@thresher/checkpoint';
import { describe, expect } from 'vitest';
import { checkpoint, contractTest, rejectionOf } from './fixtures.js';
import type { RepositoryContractInitializer } from './types.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

function offer(instanceId: string, jobId: string, overrides: Partial<JobOffer> = {}): JobOffer {
  return { instanceId, jobId, type: 'payment', attempt: 1, notBefore: null, ...overrides };
}

function activation(overrides: Partial<JobActivation> = {}): JobActivation {
  return { type: 'payment', worker: 'worker-a', now: T0, timeoutMs: MINUTE, limit: 10, ...overrides };
}

/** The `instanceId/jobId` of each lock an activation hands out, in its order. */
async function activated(repository: Repository, overrides: Partial<JobActivation> = {}): Promise<string[]> {
  const locks = await repository.activateJobs(activation(overrides));
  return locks.map((lock) => `${lock.instanceId}/${lock.jobId}`);
}

/** Store the instances the offers name. */
async function stored(repository: Repository, ...instanceIds: string[]): Promise<void> {
  for (const instanceId of instanceIds) await repository.put(checkpoint(instanceId, 1));
}

/** `offerJob`, `withdrawJob`, `activateJobs`, `relockJob`, `jobLock`: jobs queued for workers outside the engine. */
export function describeJobs<TRepository extends Repository>(initializer: RepositoryContractInitializer<TRepository>) {
  const test = contractTest(initializer, 'jobs.ts');

  describe('Repository#offerJob / withdrawJob / activateJobs / relockJob / jobLock', () => {
    test('TH-JOBS-01', async (repository) => {
      await stored(repository, 'i-1', 'i-2');
      expect(await repository.offerJob(offer('i-2', 'j-1'))).toBe(true);
      expect(await repository.offerJob(offer('i-1', 'j-9'))).toBe(true);
      expect(await repository.offerJob(offer('i-1', 'j-2', { type: 'shipping' }))).toBe(true);

      const locks = await repository.activateJobs(activation({ worker: 'w-1', timeoutMs: 5_000 }));

      expect(locks).toEqual([
        { instanceId: 'i-2', jobId: 'j-1', type: 'payment', attempt: 1, worker: 'w-1', deadline: T0 + 5_000 },
        { instanceId: 'i-1', jobId: 'j-9', type: 'payment', attempt: 1, worker: 'w-1', deadline: T0 + 5_000 },
      ]);
      expect(await activated(repository, { type: 'shipping' })).toEqual(['i-1/j-2']);
    });

    test('TH-JOBS-02', async (repository) => {
      await stored(repository, 'i-1');
      for (const jobId of ['j-1', 'j-2', 'j-3']) await repository.offerJob(offer('i-1', jobId));

      expect(await activated(repository, { limit: 2 })).toEqual(['i-1/j-1', 'i-1/j-2']);
      expect(await activated(repository, { now: T0 + 1, limit: 2 })).toEqual(['i-1/j-3']);
      expect(await activated(repository, { now: T0 + MINUTE - 1 })).toEqual([]);
    });

    test('TH-JOBS-03', async (repository) => {
      await stored(repository, 'i-1');
      await repository.offerJob(offer('i-1', 'j-1'));
      await repository.activateJobs(activation({ worker: 'w-1' }));

      expect(await activated(repository, { now: T0 + MINUTE - 1, worker: 'w-2' })).toEqual([]);
      const again = await repository.activateJobs(activation({ now: T0 + MINUTE, worker: 'w-2' }));
      expect(again.map((lock) => [lock.worker, lock.deadline])).toEqual([['w-2', T0 + 2 * MINUTE]]);
    });

    test('TH-JOBS-04', async (repository) => {
      await stored(repository, 'i-1');
      await repository.offerJob(offer('i-1', 'j-1', { notBefore: T0 + 1_000 }));

      expect(await activated(repository, { now: T0 + 999 })).toEqual([]);
      expect(await activated(repository, { now: T0 + 1_000 })).toEqual(['i-1/j-1']);
    });

    test('TH-JOBS-05', async (repository) => {
      await stored(repository, 'i-1');
      await repository.offerJob(offer('i-1', 'j-1'));
      await repository.offerJob(offer('i-1', 'j-2'));
      await repository.activateJobs(activation({ limit: 1, worker: 'w-1' }));

      // The same attempt again (a restore offering what it owes) keeps the lock and the place.
      expect(await repository.offerJob(offer('i-1', 'j-1'))).toBe(true);
      expect((await repository.jobLock('i-1', 'j-1'))?.worker).toBe('w-1');
      expect(await activated(repository, { now: T0 + 1 })).toEqual(['i-1/j-2']);

      // A new attempt lets go of the lock and goes to the back of the queue.
      await repository.offerJob(offer('i-1', 'j-3'));
      expect(await repository.offerJob(offer('i-1', 'j-1', { attempt: 2, notBefore: T0 + 10 }))).toBe(true);
      expect(await repository.jobLock('i-1', 'j-1')).toBeUndefined();
      const locks = await repository.activateJobs(activation({ now: T0 + 10 }));
      expect(locks.map((lock) => [lock.jobId, lock.attempt])).toEqual([
        ['j-3', 1],
        ['j-1', 2],
      ]);
    });

    test('TH-JOBS-06', async (repository) => {
      await stored(repository, 'i-1');
      await repository.offerJob(offer('i-1', 'j-1'));
      await repository.activateJobs(activation({ worker: 'w-1' }));

      const moved = await repository.relockJob(
        { instanceId: 'i-1', jobId: 'j-1', attempt: 1 },
        3 * MINUTE,
        T0 + 30_000,
      );

      expect(moved).toEqual({
        instanceId: 'i-1',
        jobId: 'j-1',
        type: 'payment',
        attempt: 1,
        worker: 'w-1',
        deadline: T0 + 30_000 + 3 * MINUTE,
      });
      expect(await repository.jobLock('i-1', 'j-1')).toEqual(moved);
      expect(await activated(repository, { now: T0 + 2 * MINUTE, worker: 'w-2' })).toEqual([]);
      // Not held: a wrong attempt, a lapsed lock, a job not queued.
      expect(await repository.relockJob({ instanceId: 'i-1', jobId: 'j-1', attempt: 2 }, MINUTE, T0)).toBeUndefined();
      expect(
        await repository.relockJob({ instanceId: 'i-1', jobId: 'j-1', attempt: 1 }, MINUTE, moved!.deadline),
      ).toBeUndefined();
      expect(await repository.relockJob({ instanceId: 'i-1', jobId: 'j-2', attempt: 1 }, MINUTE, T0)).toBeUndefined();
    });

    test('TH-JOBS-07', async (repository) => {
      await stored(repository, 'i-1');
      await repository.offerJob(offer('i-1', 'j-1'));
      await repository.activateJobs(activation());

      expect(await repository.withdrawJob('i-1', 'j-1')).toBe(true);
      expect(await repository.withdrawJob('i-1', 'j-1')).toBe(false);
      expect(await repository.jobLock('i-1', 'j-1')).toBeUndefined();
      expect(await activated(repository, { now: T0 + 2 * MINUTE })).toEqual([]);
      expect(await repository.withdrawJob('no-such-instance', 'j-1')).toBe(false);
    });

    test('TH-JOBS-08', async (repository) => {
      expect(await repository.offerJob(offer('not-stored', 'j-1'))).toBe(false);
      await stored(repository, 'i-1', 'i-2');
      await repository.offerJob(offer('i-1', 'j-1'));
      await repository.offerJob(offer('i-2', 'j-1'));
      await repository.copy('i-1', 'i-3');

      await repository.delete('i-1');

      expect(await activated(repository)).toEqual(['i-2/j-1']);
      expect(await repository.jobLock('i-3', 'j-1')).toBeUndefined();
      expect(await repository.withdrawJob('i-3', 'j-1')).toBe(false);
    });

    test('TH-JOBS-09', async (repository) => {
      await stored(repository, 'i-1');
      for (let i = 0; i < 20; i++) await repository.offerJob(offer('i-1', `j-${String(i).padStart(2, '0')}`));

      const batches = await Promise.all(
        Array.from({ length: 8 }, (_, i) => repository.activateJobs(activation({ worker: `w-${i}`, limit: 3 }))),
      );

      const jobs = batches.flat().map((lock) => lock.jobId);
      expect(jobs).toHaveLength(20);
      expect(new Set(jobs).size).toBe(20);
    });

    test('TH-JOBS-10', async (repository, store) => {
      await stored(repository, 'i-1');
      for (let i = 0; i < 30; i++) await repository.offerJob(offer('i-1', `j-${String(i).padStart(2, '0')}`));
      const other = await store.connect();

      const batches = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? repository : other).activateJobs(activation({ worker: `w-${i}`, limit: 4 })),
        ),
      );

      const jobs = batches.flat().map((lock) => lock.jobId);
      expect(jobs).toHaveLength(30);
      expect(new Set(jobs).size).toBe(30);
    });

    test('TH-JOBS-11', async (repository, store) => {
      await stored(repository, 'i-1');
      await repository.offerJob(offer('i-1', 'j-1'));
      await repository.offerJob(offer('i-1', 'j-2', { notBefore: T0 + 5 }));
      await repository.activateJobs(activation({ limit: 1, worker: 'w-1' }));

      const reopened = await store.reopen();

      expect((await reopened.jobLock('i-1', 'j-1'))?.worker).toBe('w-1');
      expect(await activated(reopened, { now: T0 + 5 })).toEqual(['i-1/j-2']);
    });

    test('TH-JOBS-12', async (repository) => {
      await stored(repository, 'i-1');
      for (const bad of [
        offer('i-1', 'j-1', { attempt: 0 }),
        offer('i-1', 'j-1', { attempt: 1.5 }),
        offer('i-1', 'j-1', { notBefore: Number.NaN }),
      ]) {
        expect(await rejectionOf(repository.offerJob(bad))).toBeInstanceOf(RangeError);
      }
      for (const bad of [{ timeoutMs: 0 }, { limit: 0 }, { now: Number.POSITIVE_INFINITY }, { timeoutMs: 0.5 }]) {
        expect(await rejectionOf(repository.activateJobs(activation(bad)))).toBeInstanceOf(RangeError);
      }
      expect(
        await rejectionOf(repository.relockJob({ instanceId: 'i-1', jobId: 'j-1', attempt: 1 }, -1, T0)),
      ).toBeInstanceOf(RangeError);
      expect(await activated(repository)).toEqual([]);
    });

    test('TH-JOBS-13', async (repository) => {
      const instanceId = 'Bestellung-\u{1F69A}';
      const type = 'zahlung \u{1F4B6}';
      await stored(repository, instanceId);
      await repository.offerJob(offer(instanceId, 'auftrag-\u00E9', { type }));

      expect(await activated(repository, { type: 'zahlung \u{1F4B5}' })).toEqual([]);
      const locks = await repository.activateJobs(activation({ type, worker: 'arbeiter-\u{1F600}' }));
      expect(locks.map((lock) => [lock.instanceId, lock.jobId, lock.type, lock.worker])).toEqual([
        [instanceId, 'auftrag-\u00E9', type, 'arbeiter-\u{1F600}'],
      ]);
    });
  });
}
