/**
 * Batch operations: made over the process instances a filter matches in the search projection (cancel, resolve
 * incidents, move tokens, migrate), read and searched with their items, suspended, resumed and cancelled. The
 * handler's batch runner does the items (`options.batches`); a batch is durable in the store, so any runner on it
 * takes it up.
 */
import { z } from 'zod';
import { startBatch } from '../batch/create.js';
import {
  ACTIVE_ITEMS,
  BATCH_KINDS,
  type BatchRecord,
  type BatchSpec,
  type BatchState,
  changeBatch,
  readBatchRecord,
} from '../batch/records.js';
import type { Call, Operation } from '../operation.js';
import { notFound, Problem, ProblemKind } from '../problem.js';
import { BODY, type RowSearchable, searchRows } from '../projection/row-search.js';
import { readAs } from '../schemas/read.js';
import { projectionOf } from './searches.js';

const Filter = z.record(z.string(), z.unknown());
const Move = z.strictObject({ sourceElementId: z.string().min(1), targetElementId: z.string().min(1) });
const Cancellation = z.strictObject({ filter: Filter });
const Modification = z.strictObject({ filter: Filter, moveInstructions: z.array(Move).min(1) });
const Migration = z.strictObject({
  filter: Filter,
  migrationPlan: z.strictObject({
    targetProcessDefinitionKey: z.union([z.string().min(1), z.int()]).transform(String),
    mappingInstructions: z.array(Move),
  }),
});

/** Start a batch over the instances the filter matches, and wake the runner. */
async function started(call: Call, spec: BatchSpec, filter: Record<string, unknown>) {
  const { repository } = projectionOf(call);
  // The filter is read against the projection as it stands once it has read the log up to now.
  await projectionOf(call).caughtUp();
  const created = await startBatch(repository, spec, filter);
  call.batches?.poke();
  return { status: 200, body: created };
}

const cancelProcessInstancesBatchOperation: Operation = async (call) => {
  const { filter } = readAs(Cancellation, await call.json(), 'the batch cancellation');
  return started(call, { type: 'CANCEL_PROCESS_INSTANCE' }, filter);
};

const resolveIncidentsBatchOperation: Operation = async (call) => {
  const { filter } = readAs(Cancellation, await call.json(), 'the batch incident resolution');
  return started(call, { type: 'RESOLVE_INCIDENT' }, filter);
};

const modifyProcessInstancesBatchOperation: Operation = async (call) => {
  const { filter, moveInstructions } = readAs(Modification, await call.json(), 'the batch modification');
  return started(call, { type: 'MODIFY_PROCESS_INSTANCE', moves: moveInstructions }, filter);
};

const migrateProcessInstancesBatchOperation: Operation = async (call) => {
  const { filter, migrationPlan } = readAs(Migration, await call.json(), 'the batch migration');
  const target = await call.catalog.findKey(migrationPlan.targetProcessDefinitionKey);
  if (target === undefined) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `$.migrationPlan.targetProcessDefinitionKey: no process definition with key ${migrationPlan.targetProcessDefinitionKey}`,
    );
  }
  const spec: BatchSpec = {
    type: 'MIGRATE_PROCESS_INSTANCE',
    processId: target.processDefinitionId,
    digest: target.digest,
    mapping: migrationPlan.mappingInstructions,
  };
  return started(call, spec, filter);
};

const getBatchOperation: Operation = async (call) => {
  const key = call.params.batchOperationKey!;
  const found = await projectionOf(call).repository.searchRows({ kind: BATCH_KINDS.batch, keys: [key], limit: 1 });
  const row = found.rows[0];
  if (row === undefined) throw notFound('batch operation', key);
  return { status: 200, body: JSON.parse(String(row.fields[BODY])) };
};

const enumerated = { kind: 'enum' } as const;
const key = { kind: 'key' } as const;

const BATCHES: RowSearchable = {
  kind: BATCH_KINDS.batch,
  fields: {
    batchOperationKey: key,
    operationType: { ...enumerated, row: 'batchOperationType' },
    state: enumerated,
    startDate: { kind: 'date' },
    endDate: { kind: 'date' },
  },
};

const ITEMS: RowSearchable = {
  kind: BATCH_KINDS.item,
  fields: {
    batchOperationKey: key,
    itemKey: key,
    processInstanceKey: key,
    state: enumerated,
    processedDate: { kind: 'date' },
  },
};

const searchBatchOperations: Operation = async (call) => ({
  status: 200,
  body: await searchRows(projectionOf(call).repository, await call.json(), BATCHES, 'the batch operation search'),
});

const searchBatchOperationItems: Operation = async (call) => ({
  status: 200,
  body: await searchRows(projectionOf(call).repository, await call.json(), ITEMS, 'the batch operation item search'),
});

/** A change of a batch's state, from the states it may be made in; refused (400) from any other. */
function transition(to: BatchState, from: readonly BatchState[], verb: string): Operation {
  return async (call) => {
    const batchKey = call.params.batchOperationKey!;
    const { repository } = projectionOf(call);
    if ((await readBatchRecord(repository, batchKey)) === undefined) throw notFound('batch operation', batchKey);
    const refused = await changeBatch(
      repository,
      batchKey,
      ({ batch, items }) => {
        if (!from.includes(batch.state)) return { result: batch.state };
        const changed: BatchRecord = {
          ...batch,
          state: to,
          ...(to === 'CANCELED' ? { endDate: new Date().toISOString() } : {}),
        };
        // A cancelled batch's items not done are cancelled with it.
        const cancelled =
          to === 'CANCELED'
            ? items
                .filter((item) => item.state === 'ACTIVE')
                .map((item) => ({ ...item, state: 'CANCELED' as const, claimedBy: null, claimedUntil: null }))
            : [];
        return { batch: changed, items: cancelled, result: null };
      },
      to === 'CANCELED' ? [{ where: [ACTIVE_ITEMS] }] : [],
    );
    if (refused !== null) {
      throw new Problem(ProblemKind.InvalidArgument, `batch operation ${batchKey} is ${refused}: it cannot be ${verb}`);
    }
    if (to === 'ACTIVE') call.batches?.poke();
    return { status: 204 };
  };
}

export const batchOperations = {
  cancelProcessInstancesBatchOperation,
  resolveIncidentsBatchOperation,
  modifyProcessInstancesBatchOperation,
  migrateProcessInstancesBatchOperation,
  getBatchOperation,
  searchBatchOperations,
  searchBatchOperationItems,
  suspendBatchOperation: transition('SUSPENDED', ['CREATED', 'ACTIVE'], 'suspended'),
  resumeBatchOperation: transition('ACTIVE', ['SUSPENDED'], 'resumed'),
  cancelBatchOperation: transition('CANCELED', ['CREATED', 'ACTIVE', 'SUSPENDED'], 'cancelled'),
} satisfies Record<string, Operation>;
