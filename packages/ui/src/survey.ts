/**
 * Counts the pages show, read from the store: instances by status per deployed version, and per element of
 * a version how many instances wait there, passed it and hold an incident on it (the heat overlay). Bodies
 * are read through `engine.instance`, which restores nothing; the newest `limit` instances are counted.
 *
 * @module
 */
import type { Engine, InstanceStatus, InstanceView } from '@thresher/engine';

const PAGE = 1000;

/** The instance summaries a query matches, newest first, a page at a time. */
async function* pages(engine: Engine, query: { definition?: string; status?: InstanceStatus }) {
  let before: string | undefined;
  for (;;) {
    const page = await engine.instances({ ...query, order: 'desc', limit: PAGE, ...(before ? { before } : {}) });
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    before = page[page.length - 1]?.instanceId;
  }
}

/** Instances of one deployed version by status, and their open incidents. */
export interface VersionCounts {
  running: number;
  completed: number;
  terminated: number;
  /** Open incidents of its running instances (of the newest `limit` of them). */
  incidents: number;
}

/** Counts of one deployed version, and of each of its processes (a file may hold several). */
export interface CountsOfVersion extends VersionCounts {
  byProcess: Map<string, VersionCounts>;
  /** Its newest `limit` instances, whatever their status (what the heat overlay counts). */
  newest: string[];
  /** It has more instances than `newest` holds. */
  capped: boolean;
}

function zero(): VersionCounts {
  return { running: 0, completed: 0, terminated: 0, incidents: 0 };
}

/** Counts per deployment digest of one definition. */
export async function versionCounts(
  engine: Engine,
  definitionId: string,
  limit: number,
): Promise<Map<string, CountsOfVersion>> {
  const counts = new Map<string, CountsOfVersion>();
  const running = new Map<string, string[]>();
  const of = (digest: string, processId: string): [CountsOfVersion, VersionCounts] => {
    let version = counts.get(digest);
    if (!version) {
      version = { ...zero(), byProcess: new Map(), newest: [], capped: false };
      counts.set(digest, version);
    }
    let process = version.byProcess.get(processId);
    if (!process) {
      process = zero();
      version.byProcess.set(processId, process);
    }
    return [version, process];
  };
  for await (const page of pages(engine, { definition: definitionId })) {
    for (const summary of page) {
      const [version, process] = of(summary.definitionDigest, summary.processId);
      version[summary.status]++;
      process[summary.status]++;
      if (version.newest.length < limit) version.newest.push(summary.instanceId);
      else version.capped = true;
      if (summary.status !== 'running') continue;
      const ids = running.get(summary.definitionDigest) ?? [];
      if (ids.length < limit) ids.push(summary.instanceId);
      running.set(summary.definitionDigest, ids);
    }
  }
  for (const [digest, ids] of running) {
    for (const view of await views(engine, ids)) {
      for (const count of of(digest, view.processId)) count.incidents += view.incidents.length;
    }
  }
  return counts;
}

/** Per element: instances waiting there now, that passed it, that hold an incident on it. */
export interface ElementHeat {
  waiting: number;
  passed: number;
  incidents: number;
}

export interface Heat {
  elements: Record<string, ElementHeat>;
  /** How many instances were counted, and whether there were more than that. */
  counted: number;
  capped: boolean;
}

/** The heat of one deployed version, over the newest instances its counts name. */
export async function heat(engine: Engine, version: Pick<CountsOfVersion, 'newest' | 'capped'>): Promise<Heat> {
  const { newest: ids, capped } = version;
  const elements: Record<string, ElementHeat> = {};
  const at = (id: string): ElementHeat => {
    elements[id] ??= { waiting: 0, passed: 0, incidents: 0 };
    return elements[id];
  };
  for (const view of await views(engine, ids)) {
    const marks = markers(view);
    for (const id of marks.active) at(id).waiting++;
    for (const id of marks.completed) at(id).passed++;
    for (const id of marks.incidents) at(id).incidents++;
  }
  return { elements, counted: ids.length, capped };
}

/** Where an instance stands on its diagram: each element once per kind. */
export interface Markers {
  active: string[];
  completed: string[];
  incidents: string[];
  /** The sequence flows taken: the path drawn. */
  taken: string[];
}

export function markers(view: InstanceView): Markers {
  const running = view.status === 'running';
  return {
    active: running ? [...new Set(view.activeElements)] : [],
    completed: [...new Set(view.history.map((entry) => entry.node))],
    incidents: [...new Set(view.incidents.map((incident) => incident.nodeId))],
    taken: [...new Set(view.flows.map((entry) => entry.flow))],
  };
}

async function views(engine: Engine, ids: readonly string[]): Promise<InstanceView[]> {
  const found: InstanceView[] = [];
  for (const id of ids) {
    const view = await engine.instance(id);
    if (view) found.push(view);
  }
  return found;
}
