/**
 * The open incidents of every instance on a store, as the search projection keeps them: grouped by process, element
 * and error message with their counts (what an operator looks at first), and each group's incidents with the
 * engine's ids of them and their instances, for the commands that act on them.
 *
 * @module
 */
import type { RowCondition } from '@thresher/checkpoint';
import type { Engine } from '@thresher/engine';
import { InstanceKeys } from './instance-keys.js';
import { INCIDENTS } from './ops/searches.js';
import { bodyOf, KINDS } from './projection/instance-rows.js';
import { allRows } from './projection/kept-rows.js';
import { searchRows } from './projection/row-search.js';
import type { SearchProjection } from './projection/search-projection.js';

/** Open incidents of one process, element and error message. */
export interface IncidentGroup {
  processId: string;
  elementId: string;
  errorMessage: string;
  errorType: string;
  count: number;
}

/** An open incident, as the list shows it. */
export interface IncidentListItem {
  /** The engine's id of the incident (`<instanceId>/i2`), and of its instance. */
  incidentId: string;
  instanceId: string;
  /** Camunda's key of the incident, as the REST API names it. */
  incidentKey: string;
  processId: string;
  elementId: string;
  errorType: string;
  errorMessage: string;
  creationTime: string;
}

/** Which group's incidents, and which page of them. */
export interface IncidentListQuery {
  processId?: string;
  elementId?: string;
  errorMessage?: string;
  from?: number;
  limit?: number;
}

export class IncidentList {
  readonly #projection: SearchProjection;
  readonly #keys: InstanceKeys;

  constructor(engine: Engine, projection: SearchProjection) {
    this.#projection = projection;
    this.#keys = new InstanceKeys(engine);
  }

  /** Every group of open incidents, the largest first (then by process, element and message). */
  async groups(): Promise<IncidentGroup[]> {
    const where: RowCondition[] = [{ op: 'eq', field: 'state', type: 'text', value: 'ACTIVE' }];
    const groups = new Map<string, IncidentGroup>();
    for await (const row of allRows(this.#projection.repository, { kind: KINDS.incident, where })) {
      const body = bodyOf(row);
      const group = {
        processId: String(body.processDefinitionId),
        elementId: String(body.elementId),
        errorMessage: String(body.errorMessage ?? ''),
        errorType: String(body.errorType),
      };
      const id = JSON.stringify([group.processId, group.elementId, group.errorMessage]);
      const known = groups.get(id);
      if (known === undefined) groups.set(id, { ...group, count: 1 });
      else known.count++;
    }
    return [...groups.values()].sort(
      (a, b) =>
        b.count - a.count ||
        a.processId.localeCompare(b.processId) ||
        a.elementId.localeCompare(b.elementId) ||
        a.errorMessage.localeCompare(b.errorMessage),
    );
  }

  /** The open incidents of a group (or of every group), oldest first. */
  async search(query: IncidentListQuery = {}): Promise<{ items: IncidentListItem[]; total: number }> {
    const filter: Record<string, unknown> = { state: 'ACTIVE' };
    if (query.processId !== undefined) filter.processDefinitionId = query.processId;
    if (query.elementId !== undefined) filter.elementId = query.elementId;
    if (query.errorMessage !== undefined) filter.errorMessage = query.errorMessage;
    const body = {
      filter,
      sort: [{ field: 'creationTime', order: 'ASC' }],
      page: { from: query.from ?? 0, limit: query.limit ?? 50 },
    };
    const found = await searchRows(this.#projection.repository, body, INCIDENTS, 'the incident list');
    const items: IncidentListItem[] = [];
    for (const incident of found.items) {
      const key = String(incident.incidentKey);
      const owner = await this.#keys.instanceOf(key, 'incidentKey');
      // An incident whose instance was deleted since the projection kept it is no one's to retry.
      if (owner === undefined) continue;
      items.push({
        incidentId: `${owner.instanceId}/i${owner.local}`,
        instanceId: owner.instanceId,
        incidentKey: key,
        processId: String(incident.processDefinitionId),
        elementId: String(incident.elementId),
        errorType: String(incident.errorType),
        errorMessage: String(incident.errorMessage ?? ''),
        creationTime: String(incident.creationTime),
      });
    }
    return { items, total: found.page.totalItems };
  }

  /** Resolves once the list shows every change logged before the call. */
  caughtUp(): Promise<void> {
    return this.#projection.caughtUp();
  }
}
