/**
 * Process instance keys and the instances they name, both ways, through the store's serials. A serial never
 * changes, so what was looked up once is kept (a bounded number of instances).
 */
import type { Engine, InstanceView } from '@thresher/engine';
import { instanceKey, readKey } from './keys.js';
import { notFound } from './problem.js';

const KEPT = 10_000;

export class InstanceKeys {
  private readonly serials = new Map<string, number>();

  constructor(private readonly engine: Engine) {}

  /** The key of an instance (its parent given, null for a root, so the store finds it by what it indexes). */
  async keyOf(instanceId: string, parentId: string | null): Promise<string> {
    return instanceKey(await this.serialOf(instanceId, parentId));
  }

  /** The store serial of an instance (its parent given when known; null looks among the roots first). */
  async serialOf(instanceId: string, parentId: string | null): Promise<number> {
    const kept = this.serials.get(instanceId);
    if (kept !== undefined) return kept;
    const candidates =
      parentId === null
        ? await this.engine.instances({ rootId: instanceId, roots: true, limit: 1 })
        : await this.engine.instances({ parentId });
    const summary = candidates.find((candidate) => candidate.instanceId === instanceId);
    if (summary === undefined) {
      // Not a root after all: found through its parent.
      const view = parentId === null ? await this.engine.instance(instanceId) : undefined;
      if (view?.parentId) return this.serialOf(instanceId, view.parentId);
      throw new Error(`instance ${instanceId} is not in the store`);
    }
    this.keep(instanceId, summary.serial);
    return summary.serial;
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
