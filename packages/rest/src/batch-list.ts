/**
 * Batch operations as a view makes and reads them (as `TaskList` and `IncidentList` read the projection): the
 * instances of one version migrated as one batch, and a batch's progress. A `BatchRunner` on the store does them.
 *
 * @module
 */
import type { Engine } from '@thresher/engine';
import { startBatch } from './batch/create.js';
import { type BatchRead, readBatch } from './batch/records.js';
import { InstanceKeys } from './instance-keys.js';
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

  /** A batch operation as the store has it now (its record and items), or undefined. */
  batch(key: string): Promise<BatchRead | undefined> {
    return readBatch(this.#projection.repository, key);
  }
}
