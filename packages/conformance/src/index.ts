/**
 * @module @thresher/conformance
 *
 * The `Repository` conformance suite (docs/architecture.md §7): one set of vitest specs, one file per contract method
 * and one per group of the reference checkpoint-saver inventory (`reference/`), that every store runs
 * unchanged. Every test is a row of the case table (`CONFORMANCE_CASES`), which names it, says what it
 * checks and which reference case it realises; `CONFORMANCE.md` is generated from that table. A store
 * passes when its `conformance.test.ts` calls {@link runRepositoryContract} with an initializer and every
 * test is green or reported skipped for a capability it declares it lacks. A store depends on this package as a
 * dev dependency; vitest and `@thresher/checkpoint` are peer dependencies, so the suite checks the contract of
 * the very copy the store implements.
 */

import type { Repository } from '@thresher/checkpoint';
import { afterAll, describe } from 'vitest';
import { CONFORMANCE_CASES } from './cases.js';
import { describeClose } from './close.js';
import { describeCopy } from './copy.js';
import { describeDelete } from './delete.js';
import { describeDeployments } from './deployments.js';
import { describeDueTimers } from './due-timers.js';
import { describeFencing } from './fencing.js';
import { registeredCases } from './fixtures.js';
import { describeGet } from './get.js';
import { describeHistory } from './history.js';
import { describeInstances } from './instances.js';
import { describeJobs } from './jobs.js';
import { describeLeases } from './leases.js';
import { describeList } from './list.js';
import { describeMessages } from './messages.js';
import { describePrune } from './prune.js';
import { describePut } from './put.js';
import { describePutLeases } from './put-leases.js';
import { describePutWrites } from './put-writes.js';
import { describeReadOrder } from './read-order.js';
import { describeReferenceCopyThread } from './reference/copy-thread.js';
import { describeReferenceDeleteForRuns } from './reference/delete-for-runs.js';
import { describeReferenceDeleteThread } from './reference/delete-thread.js';
import { describeReferenceDeltaChannelHistory } from './reference/delta-channel-history.js';
import { describeReferenceGetTuple } from './reference/get-tuple.js';
import { describeReferenceList } from './reference/list.js';
import { describeReferencePrune } from './reference/prune.js';
import { describeReferencePut } from './reference/put.js';
import { describeReferencePutWrites } from './reference/put-writes.js';
import { describeRetention } from './retention.js';
import { describeRewrite } from './rewrite.js';
import { describeSchemaFence } from './schema-fence.js';
import { describeSearchRows } from './search-rows.js';
import { describeSubscriptions } from './subscriptions.js';
import { describeTrees } from './trees.js';
import type { RepositoryContractInitializer } from './types.js';
import { describeWriteRules } from './write-rules.js';

export type { Repository } from '@thresher/checkpoint';
export type {
  ConformanceCase,
  ReferenceCaseName,
  ReferenceGroup,
  SpecFile,
  WriteRuleSpec,
} from './cases.js';
export { CONFORMANCE_CASES, caseTableProblems, caseTitle, REFERENCE_CASE_COUNT, REFERENCE_INVENTORY } from './cases.js';
export type { StoreHooks } from './fixtures.js';
export type { BackendName, BackendSupport } from './table.js';
export { CONFORMANCE_BACKENDS, declaredCapabilities, renderConformanceTable } from './table.js';
export type { Capability, RepositoryCapabilities, RepositoryContractInitializer } from './types.js';

/**
 * Register the `Repository` contract as vitest `describe`/`it` blocks, each test on a fresh repository
 * from `initializer.createRepository()` torn down by `destroyRepository` (or `close`).
 *
 * @remarks Call it at the top level of a test file. Failure cases assert the error class and its stable
 * `code`, never just "throws". Fails (in an `afterAll`) when a case of the table has no test, and at
 * collection when a test names a case the table lacks, so the table and the suite cannot drift apart.
 *
 * @example
 * ```ts
 * import { runRepositoryContract } from '@thresher/conformance';
 * import { createMemoryRepository } from '@thresher/checkpoint';
 *
 * runRepositoryContract({
 *   name: 'memory',
 *   capabilities: { concurrentConnections: false, persistence: false, alterStoredBytes: false, upgradeSchema: false, deploymentsSeen: true },
 *   createRepository: createMemoryRepository,
 * });
 * ```
 */
export function runRepositoryContract<TRepository extends Repository>(
  initializer: RepositoryContractInitializer<TRepository>,
): void {
  describe(`Repository contract (${initializer.name})`, () => {
    describe('reference inventory', () => {
      describeReferenceGetTuple(initializer);
      describeReferencePut(initializer);
      describeReferencePutWrites(initializer);
      describeReferenceList(initializer);
      describeReferenceDeleteThread(initializer);
      describeReferenceCopyThread(initializer);
      describeReferenceDeleteForRuns(initializer);
      describeReferenceDeltaChannelHistory(initializer);
      describeReferencePrune(initializer);
    });
    describePut(initializer);
    describePutWrites(initializer);
    describeRewrite(initializer);
    describeGet(initializer);
    describeList(initializer);
    describeDelete(initializer);
    describeCopy(initializer);
    describePrune(initializer);
    describeHistory(initializer);
    describeRetention(initializer);
    describeInstances(initializer);
    describeLeases(initializer);
    describePutLeases(initializer);
    describeFencing(initializer);
    describeDueTimers(initializer);
    describeSubscriptions(initializer);
    describeMessages(initializer);
    describeJobs(initializer);
    describeSearchRows(initializer);
    describeDeployments(initializer);
    describeClose(initializer);
    describeReadOrder(initializer);
    describeTrees(initializer);
    describeSchemaFence(initializer);
    describeWriteRules(initializer);
    // Describe bodies run lazily, so the registered tests are known only once collection is over.
    afterAll(() => {
      const registered = registeredCases(initializer);
      const missing = CONFORMANCE_CASES.filter(({ id }) => !registered.has(id)).map(({ id }) => id);
      if (missing.length > 0) throw new Error(`conformance cases of cases.ts with no test: ${missing.join(', ')}`);
    });
  });
}
