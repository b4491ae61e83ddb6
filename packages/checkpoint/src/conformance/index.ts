/**
 * @module @thresher/checkpoint/conformance
 *
 * The `Repository` conformance suite (DESIGN §5): one set of vitest specs, one file per contract method,
 * that every store runs unchanged. A store passes when its `conformance.test.ts` calls
 * {@link runRepositoryContract} with an initializer and every test is green. Requires vitest (an optional
 * peer dependency); nothing else in `@thresher/checkpoint` imports this subpath.
 */
import { describe } from 'vitest';
import type { Repository } from '../repository.js';
import { describeClose } from './close.js';
import { describeDelete } from './delete.js';
import { describeDeployments } from './deployments.js';
import { describeGet } from './get.js';
import { describeInstances } from './instances.js';
import { describeList } from './list.js';
import { describePut } from './put.js';
import { describePutWrites } from './put-writes.js';
import { describeRewrite } from './rewrite.js';
import type { RepositoryContractInitializer } from './types.js';

export type { RepositoryContractInitializer } from './types.js';

/**
 * Register the `Repository` contract as vitest `describe`/`it` blocks, each test on a fresh repository
 * from `initializer.createRepository()` torn down by `destroyRepository` (or `close`).
 *
 * @remarks Call it at the top level of a test file. Failure cases assert the error class and its stable
 * `code`, never just "throws".
 *
 * @example
 * ```ts
 * import { runRepositoryContract } from '@thresher/checkpoint/conformance';
 * import { createMemoryRepository } from '@thresher/checkpoint';
 *
 * runRepositoryContract({ name: 'memory', createRepository: createMemoryRepository });
 * ```
 */
export function runRepositoryContract<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
): void {
  describe(`Repository contract (${initializer.name})`, () => {
    describePut(initializer);
    describePutWrites(initializer);
    describeRewrite(initializer);
    describeGet(initializer);
    describeList(initializer);
    describeDelete(initializer);
    describeInstances(initializer);
    describeDeployments(initializer);
    describeClose(initializer);
  });
}
