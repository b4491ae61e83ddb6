/**
 * Process instance keys and the instances they name, both ways, through the store's serials. A serial never
 * changes, so what was looked up once is kept (a bounded number of instances).
 */
import { MAX_INSTANCE_IDS } from '@thresher/checkpoint';
import type { Engine, InstanceView } from '@thresher/engine';
import { instanceKey, readKey } from './keys.js';
import { notFound } from './problem.js';

const KEPT = 10_000;

export class InstanceKeys {
  private readonly serials = new Map<string, number>();

  constructor(private readonly engine: Engine) {}

  /** The key of an instance. */
  async keyOf(instanceId: string): Promise<string> {
    return instanceKey(await this.serialOf(instanceId));
  }

  /** The store serial of an instance. */
  async serialOf(instanceId: string): Promise<number> {
    const serial = (await this.serialsOf([instanceId])).get(instanceId);
    if (serial === undefined) throw new Error(`instance ${instanceId} is not in the store`);
    return serial;
  }

  /** The serials of instances, those not kept read in one read per thousand; an instance not stored is left out. */
  async serialsOf(instanceIds: Iterable<string>): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    const missing: string[] = [];
    for (const instanceId of new Set(instanceIds)) {
      const kept = this.serials.get(instanceId);
      if (kept === undefined) missing.push(instanceId);
      else found.set(instanceId, kept);
    }
    for (let from = 0; from < missing.length; from += MAX_INSTANCE_IDS) {
      for (const summary of await this.engine.instances({ ids: missing.slice(from, from + MAX_INSTANCE_IDS) })) {
        this.keep(summary.instanceId, summary.serial);
        found.set(summary.instanceId, summary.serial);
      }
    }
    return found;
  }

  /**
   * The instance an instance key (or a key of something it made) names, with the local number the key adds;
   * undefined when the key names no instance in the store. A key that is no key is a 400 naming `where`.
   */
  async instanceOf(key: string, where: string): Promise<{ instanceId: string; local: number } | undefined> {
    const parts = readKey(key, where);
    if (parts.kind !== 'instance') return undefined;
    const [summary] = await this.engine.instances({ serial: parts.serial, limit: 1 });
    if (summary === undefined) return undefined;
    this.keep(summary.instanceId, summary.serial);
    return { instanceId: summary.instanceId, local: parts.local };
  }

  private keep(instanceId: string, serial: number): void {
    if (this.serials.size >= KEPT) this.serials.delete(this.serials.keys().next().value!);
    this.serials.set(instanceId, serial);
  }

  /** The instance a process instance key names, as it stands (read from the store, never behind), or a 404. */
  async viewOf(key: string, where: string): Promise<InstanceView> {
    const found = await this.instanceOf(key, where);
    const view = found && found.local === 0 ? await this.engine.instance(found.instanceId) : undefined;
    if (view === undefined) throw notFound('process instance', key);
    return view;
  }
}
