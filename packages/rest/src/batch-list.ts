/**
 * Batch operations as a view makes and reads them (as `TaskList` and `IncidentList` read the projection): the
 * instances of one version migrated as one batch, a group of incidents retried as one, and a batch's progress.
 * A `BatchRunner` on the store does them.
 *
 * @module
 */
import type { RowCondition } from '@thresher/checkpoint';
import type { Engine } from '@thresher/engine';
import { startBatch } from './batch/create.js';
import { type BatchRead, readBatch } from './batch/records.js';
import { InstanceKeys } from './instance-keys.js';
import { bodyOf, KINDS } from './projection/instance-rows.js';
import { allRows } from './projection/kept-rows.js';
import type { SearchProjection } from './projection/search-projection.js';

export class BatchList {
  readonly #projection: SearchProjection;
  readonly #keys: InstanceKeys;

  constructor(engine: Engine, projection: SearchProjection) {
    this.#projection = projection;
    this.#keys = new InstanceKeys(engine);
  }

  /** Migrate these instances onto `target` as one batch operation (`MIGRATE_PROCESS_INSTANCE`): its key. */
  async migrate(
    instanceIds: readonly string[],
    target: { processId: string; digest: string; mapping: { sourceElementId: string; targetElementId: string }[] },
  ): Promise<string> {
    if (instanceIds.length === 0) throw new RangeError('no running instance to migrate');
    await this.#projection.caughtUp();
    const keys = await Promise.all(instanceIds.map((id) => this.#keys.keyOf(id)));
    const spec = { type: 'MIGRATE_PROCESS_INSTANCE' as const, ...target };
    return (await startBatch(this.#projection.repository, spec, { processInstanceKey: { $in: keys } }))
      .batchOperationKey;
  }

  /**
   * Retry every open incident of a group (`IncidentList.groups`) as one batch operation (`RESOLVE_INCIDENT`,
   * restricted to the group's element and message): its key.
   */
  async retryGroup(group: { processId: string; elementId: string; errorMessage: string }): Promise<string> {
    await this.#projection.caughtUp();
    const where: RowCondition[] = [{ op: 'eq', field: 'state', type: 'text', value: 'ACTIVE' }];
    const instances = new Set<string>();
    for await (const row of allRows(this.#projection.repository, { kind: KINDS.incident, where })) {
      const body = bodyOf(row);
      const same =
        String(body.processDefinitionId) === group.processId &&
        String(body.elementId) === group.elementId &&
        String(body.errorMessage ?? '') === group.errorMessage;
      if (same) instances.add(String(body.processInstanceKey));
    }
    if (instances.size === 0) {
      throw new RangeError(`no open incident at ${group.elementId} of ${group.processId} with that message`);
    }
    const spec = {
      type: 'RESOLVE_INCIDENT' as const,
      only: { elementId: group.elementId, errorMessage: group.errorMessage },
    };
    const filter = { processInstanceKey: { $in: [...instances] } };
    return (await startBatch(this.#projection.repository, spec, filter)).batchOperationKey;
  }

  /** A batch operation as the store has it now (its record and items), or undefined. */
  batch(key: string): Promise<BatchRead | undefined> {
    return readBatch(this.#projection.repository, key);
  }
}
