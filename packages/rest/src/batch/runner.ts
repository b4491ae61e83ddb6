/**
 * Runs the batch operations in the store, a few items at a time: it claims items (a claim lasts `claimTtlMs`; a
 * runner that died leaves its items to the next after that), applies each through the engine under the batch's
 * own operation id — a modification or migration given twice changes nothing, a cancel of a terminated instance is
 * done — and records each item's outcome once, with the batch's counts. Several runners on one store share a
 * batch: the record's conditional writes decide which claims and which finishes an item.
 */
import type { Repository } from '@thresher/checkpoint';
import { activationScope, type Engine, EngineError, EngineErrorCode, type InstanceView } from '@thresher/engine';
import { InstanceKeys } from '../instance-keys.js';
import {
  ACTIVE_ITEMS,
  type BatchRecord,
  type BatchState,
  changeBatch,
  type ItemRecord,
  type ItemState,
  openBatches,
} from './records.js';

export interface BatchRunnerOptions {
  /** The name this runner claims items under. Default: a random one. */
  owner?: string;
  /** How long a claim lasts, ms. Default 30 s. */
  claimTtlMs?: number;
  /** How often it looks for work when it found none, ms. Default 250. */
  pollMs?: number;
  /** Items claimed at once. Default 25. */
  chunk?: number;
  /** Told of a failure that is no item's own (the store, say): the items stay claimed and are taken up again. */
  onError?: (error: unknown) => void;
}

interface Outcome {
  /** `HELD`: another engine holds the instance; the item goes back, for a runner of that engine to take. */
  state: ItemState | 'HELD';
  error: string | null;
}

/** How long a runner leaves an item alone whose instance another engine held, ms. */
const HELD_ELSEWHERE_MS = 2_000;

export class BatchRunner {
  readonly #owner: string;
  readonly #ttl: number;
  readonly #poll: number;
  readonly #chunk: number;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;
  /** Items whose instance another engine held, and until when this runner leaves them to others. */
  readonly #heldElsewhere = new Map<string, number>();

  private readonly keys: InstanceKeys;

  constructor(
    private readonly engine: Engine,
    private readonly repository: Repository,
    options: BatchRunnerOptions = {},
  ) {
    this.keys = new InstanceKeys(engine);
    this.#owner = options.owner ?? `runner-${Math.random().toString(36).slice(2)}`;
    this.#ttl = options.claimTtlMs ?? 30_000;
    this.#poll = options.pollMs ?? 250;
    this.#chunk = options.chunk ?? 25;
    this.#onError = options.onError ?? ((error) => console.error(error));
  }

  /** Look for work now and on, every `pollMs` while there is none. */
  start(): void {
    this.poke();
  }

  /** Look for work now (a batch was just made). */
  poke(): void {
    if (this.#closed || this.#running !== undefined) return;
    clearTimeout(this.#timer);
    this.#running = this.drain()
      .catch((error: unknown) => this.#onError(error))
      .finally(() => {
        this.#running = undefined;
        if (!this.#closed) this.#timer = setTimeout(() => this.poke(), this.#poll);
      });
  }

  /** Run every open batch's items until none is left to claim. */
  async drain(): Promise<void> {
    while (!this.#closed && (await this.runOnce())) {
      // On: a chunk was done.
    }
  }

  /** One chunk of each open batch; whether any item was done. */
  async runOnce(): Promise<boolean> {
    let worked = false;
    for (const batch of await openBatches(this.repository)) {
      if (this.#closed) break;
      const claimed = await this.claim(batch.batchOperationKey);
      if (claimed.length === 0) continue;
      worked = true;
      const outcomes = new Map<string, Outcome>();
      for (const item of claimed) {
        try {
          outcomes.set(item.itemKey, await this.apply(batch, item));
        } catch (error) {
          this.#onError(error);
        }
      }
      await this.finish(batch.batchOperationKey, outcomes);
    }
    return worked;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /**
   * Claim up to a chunk of the batch's unclaimed items (or those whose claim ran out): it reads a chunk of each
   * (and as many more as it leaves to other engines), not the batch's every item.
   */
  private async claim(key: string): Promise<ItemRecord[]> {
    const now = Date.now();
    const limit = this.#chunk + this.#leftToOthers(key, now);
    const unclaimed = [ACTIVE_ITEMS, { op: 'exists' as const, field: 'claimedUntil', value: false }];
    const ranOut = [ACTIVE_ITEMS, { op: 'lte' as const, field: 'claimedUntil', type: 'number' as const, value: now }];
    const read = [
      { where: unclaimed, limit },
      { where: ranOut, limit },
    ];
    return changeBatch(
      this.repository,
      key,
      async ({ batch, items }) => {
        if (batch.state !== 'CREATED' && batch.state !== 'ACTIVE') return { result: [] };
        const mine = (item: ItemRecord) => (this.#heldElsewhere.get(`${key}-${item.itemKey}`) ?? 0) <= now;
        const free = items
          .filter((item) => item.state === 'ACTIVE' && (item.claimedUntil ?? 0) <= now && mine(item))
          .slice(0, this.#chunk);
        const claimed: ItemRecord[] = [];
        for (const item of free) {
          const planned =
            item.planned ??
            (batch.spec.type === 'RESOLVE_INCIDENT' ? await this.incidentsOf(item, batch.spec.only) : null);
          claimed.push({ ...item, claimedBy: this.#owner, claimedUntil: now + this.#ttl, planned });
        }
        const active = batch.state === 'CREATED' ? { ...batch, state: 'ACTIVE' as const } : undefined;
        return { ...(active === undefined ? {} : { batch: active }), items: claimed, result: claimed };
      },
      read,
    );
  }

  /** How many of the batch's items this runner leaves to other engines now; those it may take again are forgotten. */
  #leftToOthers(key: string, now: number): number {
    let count = 0;
    for (const [item, until] of this.#heldElsewhere) {
      if (until <= now) this.#heldElsewhere.delete(item);
      else if (item.startsWith(`${key}-`)) count++;
    }
    return count;
  }

  /**
   * Record the outcomes of items still open (one another runner finished first counts once, as it recorded); an item
   * whose instance another engine held goes back unclaimed, for a runner of that engine. It reads the items it
   * records, and no more of those left to do than tell whether any is.
   */
  private async finish(key: string, outcomes: ReadonlyMap<string, Outcome>): Promise<void> {
    const at = new Date().toISOString();
    const read = [{ itemKeys: [...outcomes.keys()] }, { where: [ACTIVE_ITEMS], limit: outcomes.size + 1 }];
    await changeBatch(
      this.repository,
      key,
      ({ batch, items }) => {
        const finished: ItemRecord[] = [];
        const released: ItemRecord[] = [];
        for (const item of items) {
          const outcome = outcomes.get(item.itemKey);
          if (outcome === undefined || item.state !== 'ACTIVE') continue;
          if (outcome.state === 'HELD') {
            if (item.claimedBy === this.#owner) released.push({ ...item, claimedBy: null, claimedUntil: null });
            continue;
          }
          finished.push({
            ...item,
            state: outcome.state,
            errorMessage: outcome.error,
            processedDate: at,
            claimedBy: null,
            claimedUntil: null,
          });
        }
        if (finished.length === 0) return { items: released, result: undefined };
        const failed = finished.filter((item) => item.state === 'FAILED').length;
        const counted: BatchRecord = {
          ...batch,
          operationsFailedCount: batch.operationsFailedCount + failed,
          operationsCompletedCount: batch.operationsCompletedCount + finished.length - failed,
        };
        // The read holds one more item left to do than were finished, when there are that many: then one is not.
        const done = new Set(finished.map((item) => item.itemKey));
        const left = items.some((item) => item.state === 'ACTIVE' && !done.has(item.itemKey));
        const ended = !left && (counted.state === 'ACTIVE' || counted.state === 'CREATED');
        const state: BatchState =
          counted.operationsFailedCount === 0
            ? 'COMPLETED'
            : counted.operationsFailedCount === counted.operationsTotalCount
              ? 'FAILED'
              : 'PARTIALLY_COMPLETED';
        const changed = ended ? { ...counted, state, endDate: at } : counted;
        return { batch: changed, items: [...finished, ...released], result: undefined };
      },
      read,
    );
  }

  private async incidentsOf(item: ItemRecord, only?: { elementId: string; errorMessage: string }): Promise<string[]> {
    const view = await this.view(item);
    const chosen = (view?.incidents ?? []).filter(
      (incident) =>
        only === undefined || (incident.nodeId === only.elementId && incident.message === only.errorMessage),
    );
    return chosen.map((incident) => incident.id);
  }

  private async view(item: ItemRecord): Promise<InstanceView | undefined> {
    const owner = await this.keys.instanceOf(item.processInstanceKey, 'item');
    return owner === undefined ? undefined : this.engine.instance(owner.instanceId);
  }

  /** Do one item's work; an engine's refusal is the item's failure, anything else is thrown (the claim stays). */
  private async apply(batch: BatchRecord, item: ItemRecord): Promise<Outcome> {
    const view = await this.view(item);
    if (view === undefined)
      return { state: 'FAILED', error: `no process instance with key ${item.processInstanceKey}` };
    const operationId = `batch:${batch.batchOperationKey}`;
    try {
      switch (batch.spec.type) {
        case 'CANCEL_PROCESS_INSTANCE':
          if (view.status === 'completed')
            return failed(`process instance ${item.processInstanceKey} has completed: nothing to cancel`);
          if (view.status === 'running') await this.engine.cancel(view.id);
          return done();
        case 'RESOLVE_INCIDENT': {
          const open = new Set(view.incidents.map((incident) => incident.id));
          const planned = (item.planned ?? []).filter((id) => open.has(id));
          if ((item.planned ?? []).length === 0) return { state: 'SKIPPED', error: 'it had no incident to resolve' };
          for (const id of planned) await this.engine.retryIncident(id);
          return done();
        }
        case 'MODIFY_PROCESS_INSTANCE': {
          if (view.received.includes(operationId)) return done();
          const sources = batch.spec.moves.flatMap((move) =>
            view.elementInstances.filter((one) => one.elementId === move.sourceElementId).map((one) => ({ one, move })),
          );
          if (sources.length === 0) return { state: 'SKIPPED', error: 'no active instance of a source element' };
          const activate = sources.map(({ one, move }) => ({
            elementId: move.targetElementId,
            ...ancestorOf(view, one.id),
          }));
          await this.engine.modifyInstance(view.id, {
            terminate: sources.map(({ one }) => one.id),
            activate,
            operationId,
          });
          return done();
        }
        case 'MIGRATE_PROCESS_INSTANCE': {
          const { processId, digest, mapping } = batch.spec;
          if (view.received.includes(operationId) || view.digest === digest) return done();
          await this.engine.migrateInstance(view.id, { processId, digest, mapping, operationId });
          return done();
        }
      }
    } catch (error) {
      if (EngineError.is(error) && error.code === EngineErrorCode.InstanceHeld) {
        this.#heldElsewhere.set(`${batch.batchOperationKey}-${item.itemKey}`, Date.now() + HELD_ELSEWHERE_MS);
        return { state: 'HELD', error: null };
      }
      if (EngineError.is(error)) return failed(error.message.replace(/^THRESHER_[A-Z_]+: /, ''));
      throw error;
    }
  }
}

const done = (): Outcome => ({ state: 'COMPLETED', error: null });
const failed = (error: string): Outcome => ({ state: 'FAILED', error });

/** The flow scope a moved token goes into: the one the terminated element instance was in. */
function ancestorOf(view: InstanceView, elementInstanceId: string): { ancestorElementInstanceId?: string } {
  const scope = elementInstanceId.slice(0, elementInstanceId.lastIndexOf(':', elementInstanceId.lastIndexOf(':') - 1));
  if (scope === '/') return { ancestorElementInstanceId: view.id };
  const container = view.elementInstances.find((one) => activationScope(one.id) === scope);
  return container === undefined ? {} : { ancestorElementInstanceId: container.id };
}
