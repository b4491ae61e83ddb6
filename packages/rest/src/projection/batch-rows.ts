/**
 * The rows a batch of logged events gives: each instance the events touched as it stands now (its process instance,
 * open tasks and incidents, variables), each element activation the events opened or closed, the tasks and incidents
 * they closed, and the activations no live track is in any more, terminated.
 */
import type { Repository, SearchRow } from '@thresher/checkpoint';
import type { Engine, InstanceView, LoggedEvent } from '@thresher/engine';
import type { Catalog, ProcessDefinition } from '../catalog.js';
import type { InstanceKeys } from '../instance-keys.js';
import { elementInstanceKey, externalKey, instanceKey } from '../keys.js';
import { DEFAULT_TENANT } from '../tenants.js';
import { decisionRows } from './decision-rows.js';
import { enteredRow, reconciled } from './element-rows.js';
import { changed, instanceRows, KINDS, rowOf } from './instance-rows.js';
import { type DispatchedJob, jobRows } from './job-rows.js';
import { keptRows } from './kept-rows.js';
import { type Correlation, correlationRows, subscriptionRows } from './subscription-rows.js';

export interface BatchSources {
  engine: Engine;
  repository: Repository;
  catalog: Catalog;
  keys: InstanceKeys;
}

interface Touched {
  view: InstanceView;
  serial: number;
  definition: ProcessDefinition | undefined;
  /** The time of its last event in the batch: when what ended without an event of its own ended. */
  lastAt: number;
  /** The messages its elements took in the batch. */
  correlations: Correlation[];
  /** The jobs dispatched and completed in the batch, whether it caught a BPMN error, and the activations entered. */
  dispatched: Map<string, DispatchedJob>;
  completed: Set<string>;
  caughtError: boolean;
  entered: Map<string, string>;
}

/** A kept row changed by a closing event, or made from what the event tells when no row was kept. */
interface Closing {
  kind: string;
  key: string;
  change: Record<string, unknown>;
  made: () => SearchRow;
}

/** Events a step's order numbers apart (a step announcing more shares the last number). */
const STEP_EVENTS = 100_000;

const id = (kind: string, key: string) => `${kind}\u0000${key}`;

export async function rowsOfEvents(events: readonly LoggedEvent[], sources: BatchSources): Promise<SearchRow[]> {
  const rows = new Map<string, SearchRow>();
  const keep = (row: SearchRow) => rows.set(id(row.kind, row.key), row);
  const touched = new Map<string, Touched>();
  // Each instance read once (null: deleted since its events were logged, so it has no rows to make).
  const views = new Map<string, { view: InstanceView; at: number } | null>();
  for (const { event } of events) {
    const known = views.get(event.instanceId);
    if (known) known.at = Math.max(known.at, event.at);
    if (known !== undefined) continue;
    const view = await sources.engine.instance(event.instanceId);
    views.set(event.instanceId, view === undefined ? null : { view, at: event.at });
  }
  const read = [...views.values()].filter((one) => one !== null);
  const serials = await sources.keys.serialsOf(
    read.flatMap(({ view }) => (view.parentId === null ? [view.id] : [view.id, view.parentId])),
  );
  for (const { view, at } of read) {
    const instanceId = view.id;
    const serial = serials.get(instanceId);
    if (serial === undefined) continue;
    const parentSerial = view.parentId === null ? undefined : serials.get(view.parentId);
    // A parent deleted before its child names no key.
    const parentKey = parentSerial === undefined ? null : instanceKey(parentSerial);
    const definition = await sources.catalog.findInDeployment(view.digest, view.processId);
    touched.set(instanceId, {
      view,
      serial,
      definition,
      lastAt: at,
      correlations: [],
      dispatched: new Map(),
      completed: new Set(),
      caughtError: false,
      entered: new Map(),
    });
    for (const row of instanceRows({ view, serial, parentKey, definition })) keep(row);
    const decisions = await decisionRows(sources.engine, serial, view.decisions, definition?.processDefinitionKey);
    for (const row of decisions) keep(row);
  }
  const closings: Closing[] = [];
  // Where each instance's events stand: the seq of the step being read, and the place in it.
  const steps = new Map<string, { seq: number; index: number }>();
  for (const { event } of events) {
    const instance = touched.get(event.instanceId);
    if (instance === undefined) continue;
    const step = steps.get(event.instanceId) ?? { seq: instance.view.seq, index: STEP_EVENTS - 1 };
    steps.set(event.instanceId, step);
    if (event.type === 'checkpoint.saved') Object.assign(step, { seq: event.seq, index: 0 });
    const order = step.seq * STEP_EVENTS + Math.min(step.index++, STEP_EVENTS - 1);
    const { serial, view, definition } = instance;
    const at = new Date(event.at).toISOString();
    const owner = { processInstanceKey: instanceKey(serial), tenantId: DEFAULT_TENANT };
    if (event.type === 'message.correlated') instance.correlations.push(event);
    noteJobEvent(instance, event);
    if (event.type === 'track.entered') {
      keep(enteredRow(serial, view, definition, event, event.at, order));
    } else if (event.type === 'track.left') {
      const key = elementInstanceKey(serial, event.elementInstanceId);
      closings.push({
        kind: KINDS.elementInstance,
        key,
        change: { state: 'COMPLETED', endDate: at },
        made: () => enteredRow(serial, view, definition, event, event.at, order),
      });
    } else if (event.type === 'userTask.completed' || event.type === 'userTask.canceled') {
      const key = externalKey(serial, event.taskId);
      const state = event.type === 'userTask.completed' ? 'COMPLETED' : 'CANCELED';
      if (key === undefined) continue;
      closings.push({
        kind: KINDS.userTask,
        key,
        change: { state, completionDate: at },
        made: () => rowOf(KINDS.userTask, key, { userTaskKey: key, elementId: event.elementId, ...owner }),
      });
    } else if (event.type === 'incident.resolved') {
      const key = externalKey(serial, event.incidentId);
      if (key === undefined) continue;
      closings.push({
        kind: KINDS.incident,
        key,
        change: { state: 'RESOLVED' },
        made: () => rowOf(KINDS.incident, key, { incidentKey: key, elementId: event.elementId, ...owner }),
      });
    }
  }
  const missing = closings.filter(({ kind, key }) => !rows.has(id(kind, key)));
  for (const kind of new Set(missing.map((closing) => closing.kind))) {
    const keys = [...new Set(missing.filter((closing) => closing.kind === kind).map((closing) => closing.key))];
    const found = await sources.repository.searchRows({ kind, keys, limit: keys.length });
    for (const row of found.rows) keep(row);
  }
  for (const { kind, key, change, made } of closings) keep(changed(rows.get(id(kind, key)) ?? made(), change));
  // Activations still open in the rows: terminated when no live track is in them, else their incident as it stands.
  const byKey = new Map([...touched.values()].map((one) => [instanceKey(one.serial), one]));
  const kept = await keptRows(sources.repository, [...byKey.keys()]);
  for (const touchedOne of touched.values()) {
    const { view, serial, lastAt, definition, correlations, completed, dispatched, caughtError } = touchedOne;
    const processInstanceKey = instanceKey(serial);
    const subscriptionSource = { view, serial, definition, at: lastAt, correlations, entered: touchedOne.entered };
    const subscriptions = subscriptionRows(subscriptionSource, kept.subscriptions.get(processInstanceKey) ?? []);
    for (const row of subscriptions) keep(row);
    for (const row of correlationRows(correlations, subscriptions, { view, serial, definition })) keep(row);
    const source = { view, serial, definition, at: lastAt, completed, dispatched, caughtError };
    for (const row of jobRows(source, kept.jobs.get(processInstanceKey) ?? [])) keep(row);
    for (const row of kept.elementInstances.get(processInstanceKey) ?? []) {
      if (!rows.has(id(row.kind, row.key))) keep(row);
    }
  }
  for (const row of rows.values()) {
    const one = row.kind === KINDS.elementInstance ? byKey.get(String(row.fields.processInstanceKey)) : undefined;
    if (one !== undefined) keep(reconciled(row, one.view, one.serial, one.lastAt));
  }
  return [...rows.values()];
}

/** What the job rows need of an event: jobs dispatched (with the activation they run for) and completed, errors caught. */
function noteJobEvent(instance: Touched, event: LoggedEvent['event']): void {
  if (event.type === 'track.entered') instance.entered.set(event.elementId, event.elementInstanceId);
  else if (event.type === 'error.caught') instance.caughtError = true;
  else if (event.type === 'job.completed') instance.completed.add(event.jobId);
  else if (event.type === 'job.dispatched') {
    instance.dispatched.set(event.jobId, {
      elementId: event.elementId,
      taskType: event.taskType,
      elementInstanceId: instance.entered.get(event.elementId),
      ...(event.listener
        ? { listener: { kind: isTaskEvent(event.listener) ? 'task' : 'execution', eventType: event.listener } }
        : {}),
    });
  }
}

const isTaskEvent = (listener: string) => listener !== 'start' && listener !== 'end';
