/**
 * The open user tasks of every instance on a store, as the search projection keeps them: what a task list (the web
 * view's, as Camunda's Tasklist is to its users) reads — not only the instances an engine holds in memory. Each task
 * comes with the engine's id of it and of its instance, for the commands that act on it.
 *
 * @module
 */
import type { Engine } from '@thresher/engine';
import { InstanceKeys } from './instance-keys.js';
import { USER_TASKS } from './ops/searches.js';
import { searchRows } from './projection/row-search.js';
import type { SearchProjection } from './projection/search-projection.js';

/** What a task list asks: filters (each optional), an order and a page. */
export interface TaskListQuery {
  assignee?: string;
  /** Only tasks with no assignee. */
  unassigned?: boolean;
  candidateGroup?: string;
  candidateUser?: string;
  /** A BPMN process id. */
  processId?: string;
  /** Only tasks of this priority or above (0–100). */
  minPriority?: number;
  /** ISO 8601 date-times: only tasks due (or to follow up) before or from them. */
  dueBefore?: string;
  dueFrom?: string;
  followUpBefore?: string;
  followUpFrom?: string;
  /** Highest priority first (the default), or soonest due first (tasks without a due date last). */
  sort?: 'priority' | 'dueDate';
  from?: number;
  limit?: number;
}

/** An open user task, as the list shows it. */
export interface TaskListItem {
  /** The engine's id of the task (`<instanceId>/u3`), and of its instance. */
  taskId: string;
  instanceId: string;
  /** Camunda's key of the task, as the REST API names it. */
  userTaskKey: string;
  elementId: string;
  name: string;
  processId: string;
  assignee: string | null;
  candidateGroups: string[];
  candidateUsers: string[];
  priority: number;
  dueDate: string | null;
  followUpDate: string | null;
  creationDate: string;
}

export interface TaskListPage {
  items: TaskListItem[];
  /** How many open tasks match in all. */
  total: number;
}

export class TaskList {
  readonly #projection: SearchProjection;
  readonly #keys: InstanceKeys;

  constructor(engine: Engine, projection: SearchProjection) {
    this.#projection = projection;
    this.#keys = new InstanceKeys(engine);
  }

  /** The open tasks the query asks for. @throws a `Problem` (400) naming a filter that is not one */
  async search(query: TaskListQuery = {}): Promise<TaskListPage> {
    const filter: Record<string, unknown> = { state: 'CREATED' };
    if (query.assignee !== undefined) filter.assignee = query.assignee;
    if (query.unassigned) filter.assignee = { $exists: false };
    if (query.candidateGroup !== undefined) filter.candidateGroup = query.candidateGroup;
    if (query.candidateUser !== undefined) filter.candidateUser = query.candidateUser;
    if (query.processId !== undefined) filter.processDefinitionId = query.processId;
    if (query.minPriority !== undefined) filter.priority = { $gte: query.minPriority };
    const range = (from: string | undefined, before: string | undefined) => ({
      ...(from === undefined ? {} : { $gte: from }),
      ...(before === undefined ? {} : { $lt: before }),
    });
    if (query.dueFrom !== undefined || query.dueBefore !== undefined) {
      filter.dueDate = range(query.dueFrom, query.dueBefore);
    }
    if (query.followUpFrom !== undefined || query.followUpBefore !== undefined) {
      filter.followUpDate = range(query.followUpFrom, query.followUpBefore);
    }
    const sort =
      query.sort === 'dueDate'
        ? [
            { field: 'dueDate', order: 'ASC' },
            { field: 'priority', order: 'DESC' },
          ]
        : [
            { field: 'priority', order: 'DESC' },
            { field: 'creationDate', order: 'ASC' },
          ];
    const body = { filter, sort, page: { from: query.from ?? 0, limit: query.limit ?? 50 } };
    const found = await searchRows(this.#projection.repository, body, USER_TASKS, 'the task list');
    const items: TaskListItem[] = [];
    for (const task of found.items) {
      const key = String(task.userTaskKey);
      const owner = await this.#keys.instanceOf(key, 'userTaskKey');
      // A task whose instance was deleted since the projection kept it is no one's to act on.
      if (owner === undefined) continue;
      items.push({
        taskId: `${owner.instanceId}/u${owner.local}`,
        instanceId: owner.instanceId,
        userTaskKey: key,
        elementId: String(task.elementId),
        name: String(task.name ?? task.elementId),
        processId: String(task.processDefinitionId),
        assignee: typeof task.assignee === 'string' ? task.assignee : null,
        candidateGroups: (task.candidateGroups as string[] | undefined) ?? [],
        candidateUsers: (task.candidateUsers as string[] | undefined) ?? [],
        priority: Number(task.priority ?? 50),
        dueDate: typeof task.dueDate === 'string' ? task.dueDate : null,
        followUpDate: typeof task.followUpDate === 'string' ? task.followUpDate : null,
        creationDate: String(task.creationDate),
      });
    }
    return { items, total: found.page.totalItems };
  }

  /** Resolves once the list shows every change logged before the call. */
  caughtUp(): Promise<void> {
    return this.#projection.caughtUp();
  }
}
