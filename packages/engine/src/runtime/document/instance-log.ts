/**
 * An instance's past, read from the store's log (`Repository.history`): every element it completed, flow it
 * took and decision it evaluated, in order. The document holds the live state only; this is what
 * `engine.instance(id)` shows of what the instance did.
 *
 * @module
 */
import {
  type DecisionRecord,
  type FlowEntry,
  type HistoryEntry,
  openStepLog,
  type Repository,
} from '@thresher/checkpoint';
import type { InstanceState } from '../../core/step/state.js';
import type { StoredEvent } from './step-events.js';

/** Log entries read from the store at a time. */
const PAGE = 1000;

/** What an instance did, in order, as its log keeps it. */
export interface InstancePast {
  history: HistoryEntry[];
  flows: FlowEntry[];
  decisions: DecisionRecord[];
  /** The events it published, each with its step's time: what `track.entered` counts come from. */
  events: { stored: StoredEvent; capturedAt: number }[];
}

/**
 * The past of an instance: its log entries, oldest first, then what an older document carried in its body
 * that the log does not hold (`state.past` as {@link leaveLoggedPast} left it: there only until the instance's
 * next step writes it into the log).
 */
export async function readPast(
  repository: Repository,
  instanceId: string,
  state?: Pick<InstanceState, 'past'>,
): Promise<InstancePast> {
  const past: InstancePast = { history: [], flows: [], decisions: [], events: [] };
  let after: string | undefined;
  for (;;) {
    const page = await repository.history({ instanceId, limit: PAGE, ...(after === undefined ? {} : { after }) });
    for (const entry of page) {
      const log = openStepLog(entry.bytes, { instanceId, seq: entry.seq });
      if (log.completed) past.history.push(...log.completed);
      if (log.flows) past.flows.push(...log.flows);
      if (log.decisions) past.decisions.push(...log.decisions);
      for (const stored of log.events ?? []) past.events.push({ stored, capturedAt: log.capturedAt });
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]!.position;
  }
  if (state?.past) {
    past.history.push(...state.past.history);
    past.decisions.push(...(state.past.decisions ?? []));
  }
  return past;
}

/**
 * A state opened from a document older than schema 14 keeps only the part of its past the log does not hold
 * yet, so the next step's entry logs it once and a view shows it once (a migration stopped half-way logged its
 * start). Call it once for each state opened from the store.
 */
export async function leaveLoggedPast(repository: Repository, state: InstanceState): Promise<void> {
  const { past } = state;
  if (past === undefined) return;
  const logged = await readPast(repository, state.instance.id);
  state.past = {
    ...past,
    history: past.history.slice(logged.history.length),
    decisions: (past.decisions ?? []).slice(logged.decisions.length),
  };
}
