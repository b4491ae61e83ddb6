/**
 * A batch operation made from a request: its filter evaluated once against the search projection (as Camunda
 * evaluates it against its secondary storage), each process instance it matches an item, written in one go.
 */
import type { Repository } from '@thresher/checkpoint';
import { passingKey } from '../keys.js';
import { PROCESS_INSTANCES } from '../ops/searches.js';
import { allRows } from '../projection/kept-rows.js';
import { filterConditions } from '../projection/row-search.js';
import { type BatchRecord, type BatchSpec, createBatch, type ItemRecord } from './records.js';

/** Make the batch `spec` says over the instances `filter` matches now; its key. */
export async function startBatch(
  repository: Repository,
  spec: BatchSpec,
  filter: Record<string, unknown>,
  now = new Date(),
): Promise<{ batchOperationKey: string; batchOperationType: BatchSpec['type'] }> {
  const where = filterConditions(PROCESS_INSTANCES, filter, '$.filter');
  const instanceKeys: string[] = [];
  for await (const row of allRows(repository, { kind: PROCESS_INSTANCES.kind, where })) {
    instanceKeys.push(String(row.fields.processInstanceKey));
  }
  const key = passingKey();
  const batch: BatchRecord = {
    batchOperationKey: key,
    batchOperationType: spec.type,
    state: 'CREATED',
    startDate: now.toISOString(),
    endDate: null,
    operationsTotalCount: instanceKeys.length,
    operationsFailedCount: 0,
    operationsCompletedCount: 0,
    spec,
  };
  const items = instanceKeys.map(
    (instance): ItemRecord => ({
      batchOperationKey: key,
      operationType: spec.type,
      itemKey: instance,
      processInstanceKey: instance,
      state: 'ACTIVE',
      processedDate: null,
      errorMessage: null,
      claimedBy: null,
      claimedUntil: null,
      planned: null,
    }),
  );
  await createBatch(
    repository,
    items.length === 0 ? { ...batch, state: 'COMPLETED', endDate: batch.startDate } : batch,
    items,
  );
  return { batchOperationKey: key, batchOperationType: spec.type };
}
