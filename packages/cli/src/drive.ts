import type { IncidentRecord, Variables } from '@thresher/checkpoint';
import { answerQuestion, EngineError, EngineErrorCode, type SettledState, type UserTaskView } from '@thresher/engine';
import { ExitCode } from './exit-code.js';
import { type AnswerMode, answerTask } from './operator/answer-task.js';
import { createTerminalOperator, type TerminalOperator } from './operator/terminal-operator.js';
import { humanDuration, isoDuration, shellQuote } from './output.js';
import type { Session } from './session.js';

export type { AnswerMode } from './operator/answer-task.js';

/** A guard against a model that loops through a user task forever under `--yes` or `--choose`. */
export const MAX_AUTO_COMPLETIONS = 1000;

/** How long a command waits for a BPMN timer by default (`--wait-timers PT1M`), in ms. */
export const DEFAULT_WAIT_TIMERS_MS = 60_000;

/** How a drive treats what the CLI can wait for itself. */
export interface DriveOptions {
  /**
   * An instance that waits only on BPMN timers (and messages or signals) is kept running, in this
   * process, when its earliest timer falls due within this many ms; otherwise it parks. Default 1 minute.
   */
  waitTimers?: number;
  /** `--choose ELEMENT=OPTION` answers, by element id: they come first, in every answer mode. */
  choose?: ReadonlyMap<string, string>;
  /**
   * The person at the terminal: answers user tasks in mode `prompt` (one is made from the session when
   * absent) and is briefed when `brief` is set.
   */
  operator?: TerminalOperator;
  /**
   * Before anything is asked, show the operator the instance's touchpoints still ahead or now and drive on
   * only if approved (`complete`, `resume`, `send` on a terminal); `run` briefs on the plan before the start.
   */
  brief?: boolean;
}

/** The longest delay Node's `setTimeout` (the system clock's) honours (about 24.8 days); longer ones fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The waiting-state part of `SettledState`. */
type WaitingState = Extract<SettledState, { status: 'waiting' }>;

/** An open user task as the CLI reports it. */
export interface TaskInfo {
  /** `<instanceId>/<localId>`, as the engine names it. */
  id: string;
  localId: string;
  elementId: string;
  name: string | null;
}

/** An incident as the CLI reports it, with the command that retries it. */
export interface IncidentInfo {
  /** `<instanceId>/<localId>`. */
  id: string;
  localId: string;
  elementId: string;
  kind: IncidentRecord['kind'];
  message: string;
  /** The command that resolves it and drives the instance on; absent for `memory:`, which keeps nothing. */
  retry?: string;
}

/** A BPMN timer an instance waits on, as the CLI reports it. */
export interface TimerInfo {
  elementId: string;
  /** Epoch ms. */
  dueAt: number;
  /** `dueAt` as an ISO 8601 instant (UTC). */
  due: string;
  /**
   * Resumes the instance now and waits in that process until the timer is due (`--wait-timers`); absent
   * for `memory:` and while a user task is open (the drive then stops at the task, not at the timer).
   */
  waitCommand?: string;
}

/** A message or signal an instance waits for, with the command that delivers it. */
export interface SubscriptionInfo {
  elementId: string;
  kind: 'message' | 'signal';
  name: string;
  /** A message's correlation key (`--key`); null for a signal or a message without one. */
  correlationKey: string | null;
  /** `thresher send …` or `thresher signal …`; absent for `memory:`, which keeps nothing. */
  command?: string;
}

/** A running ad-hoc sub-process that takes activations, as a parked outcome lists it. */
export interface AdHocInfo {
  /** `<instanceId>/<id>`. */
  id: string;
  elementId: string;
  /** The elements it can activate. */
  activatable: string[];
  /** `thresher activate …` of its first element; absent for `memory:`, which keeps nothing. */
  command?: string;
}

/** What every outcome of a run says. */
export interface OutcomeBase {
  instanceId: string;
  processId: string;
  /** The root scope's variables when the drive stopped. */
  variables: Variables;
}

/** The instance is durable and waits for an answer the CLI did not have. */
export type ParkedOutcome = OutcomeBase & {
  status: 'parked';
  userTasks: TaskInfo[];
  /** Why the CLI stopped asking (end of input, `complete` never prompts, …). */
  reason: string;
  /** BPMN timers armed, earliest first. */
  timers: TimerInfo[];
  /** Messages and signals it waits for. */
  subscriptions: SubscriptionInfo[];
  /** Ad-hoc sub-processes that take activations. */
  adHocSubProcesses: AdHocInfo[];
  /**
   * Commands that continue the instance: `complete` per user task, `activate` per ad-hoc sub-process,
   * `send`/`signal` per subscription, then `resume` last; empty for the `memory:` store, which keeps nothing.
   */
  commands: string[];
  /** Set when a stdin or `--choose` answer was unusable: the instance is parked but the run exits 2. */
  invalidAnswer?: string;
  /**
   * Set when the person at the terminal ended the drive: `declined` the briefing (exit 4) or `stopped` at
   * a choice with `q` (exit 5). The instance is parked as any other.
   */
  operator?: 'declined' | 'stopped';
};

/** Where driving an instance ended; `exitCodeOf` maps it to the process exit code. */
export type Outcome =
  | (OutcomeBase & { status: 'completed' })
  | (OutcomeBase & { status: 'terminated'; elementId: string | null })
  | (OutcomeBase & { status: 'incident'; incidents: IncidentInfo[]; userTasks: TaskInfo[] })
  | ParkedOutcome;

/** The exit code an outcome ends the command with. */
export function exitCodeOf(outcome: Outcome): ExitCode {
  switch (outcome.status) {
    case 'completed':
    case 'terminated':
      return ExitCode.Ok;
    case 'incident':
      return ExitCode.Failed;
    case 'parked':
      if (outcome.invalidAnswer) return ExitCode.Usage;
      if (outcome.operator === 'declined') return ExitCode.NotApproved;
      if (outcome.operator === 'stopped') return ExitCode.Stopped;
      return ExitCode.Parked;
  }
}

const localIdOf = (id: string): string => id.slice(id.lastIndexOf('/') + 1);

function taskInfo(task: UserTaskView): TaskInfo {
  return { id: task.id, localId: localIdOf(task.id), elementId: task.elementId, name: task.name };
}

/** `--handlers … --store …` as the command was given them, for commands printed to the user. */
function continueFlags(session: Session): string {
  const { handlers, store } = session.options;
  const parts: string[] = [];
  if (handlers !== undefined) parts.push('--handlers', shellQuote(handlers));
  if (store !== undefined) parts.push('--store', shellQuote(store));
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

/** The shortest TASK argument of `thresher complete` that names this task among the open ones. */
function taskArgument(task: TaskInfo, open: TaskInfo[]): string {
  return open.filter((other) => other.elementId === task.elementId).length === 1 ? task.elementId : task.localId;
}

/**
 * Drives an instance until it ends or waits for something the CLI cannot give: each time it settles
 * waiting on user tasks, the first is answered (its `--choose`, else as `mode` says) and the loop goes on.
 * When it waits on no user task but on BPMN timers, the drive waits for the earliest one if it falls due
 * within `options.waitTimers`, and parks otherwise (as it does on messages and signals). With
 * `options.brief`, the operator approves the touchpoints left first.
 */
export async function drive(
  session: Session,
  instanceId: string,
  mode: AnswerMode,
  options: DriveOptions = {},
): Promise<Outcome> {
  const { engine } = session;
  const waitTimers = options.waitTimers ?? DEFAULT_WAIT_TIMERS_MS;
  const operator = options.operator ?? (mode === 'prompt' ? createTerminalOperator(session, false) : undefined);
  const sources = { mode, ...(options.choose ? { choose: options.choose } : {}), ...(operator ? { operator } : {}) };
  let briefing = options.brief === true && operator !== undefined;
  let autoCompleted = 0;
  for (;;) {
    // On the clock of a running process a retry backoff passes by itself: wait it out, as a handler run.
    const state = await engine.settled(instanceId, { retries: 'wait' });
    const view = await engine.instance(instanceId);
    const base: OutcomeBase = {
      instanceId,
      processId: view?.processId ?? '',
      variables: view?.variables ?? {},
    };
    if (state.status !== 'waiting') {
      if (state.status === 'completed') return { status: 'completed', ...base };
      const elementId = session.terminatedAt.get(instanceId) ?? view?.history.at(-1)?.node ?? null;
      return { status: 'terminated', ...base, elementId };
    }
    const open = state.userTasks.map(taskInfo);
    if (state.incidents.length > 0) {
      // A memory: store dies with this process: no later command can retry what it held.
      const memory = session.store.kind === 'memory';
      const incidents = state.incidents.map((incident): IncidentInfo => {
        const localId = localIdOf(incident.id);
        const info = {
          id: incident.id,
          localId,
          elementId: incident.nodeId,
          kind: incident.kind,
          message: incident.message,
        };
        if (memory) return info;
        return {
          ...info,
          retry: `thresher retry ${shellQuote(instanceId)} ${shellQuote(localId)}${continueFlags(session)}`,
        };
      });
      return { status: 'incident', ...base, incidents, userTasks: open };
    }
    if (briefing) {
      briefing = false;
      if (!(await approveRest(session, operator!, instanceId))) {
        return { ...parked(session, base, state, 'the briefing was not approved'), operator: 'declined' };
      }
    }
    // A task whose listeners are running (or stopped by an incident) takes no answer until they are done.
    const task = state.userTasks.find((open) => open.state === 'created');
    if (!task) {
      const next = state.timers[0];
      if (next && next.dueAt - session.io.clock.now() <= waitTimers) {
        await waitForTimer(session, instanceId, next);
        continue;
      }
      return parked(session, base, state, eventReason(state, waitTimers, session.io.clock.now()));
    }
    if (autoCompleted >= MAX_AUTO_COMPLETIONS) {
      return parked(
        session,
        base,
        state,
        `--yes or --choose answered ${MAX_AUTO_COMPLETIONS} user tasks; the model seems to loop`,
      );
    }
    const answer = await answerTask(session, task, sources);
    if (answer.kind === 'again') continue;
    if (answer.kind === 'park') {
      const outcome = parked(session, base, state, answer.reason);
      return answer.operator ? { ...outcome, operator: answer.operator } : outcome;
    }
    if (answer.kind === 'invalid') {
      const why = sources.choose?.has(task.elementId) ? 'a --choose answer' : 'a stdin answer';
      return { ...parked(session, base, state, `${why} was unusable`), invalidAnswer: answer.message };
    }
    try {
      if (answer.kind === 'complete') await engine.completeUserTask(task.id, answer.variables);
      else await answerQuestion(engine, answer.question, answer.answer);
      autoCompleted += answer.by === 'yes' || answer.by === 'choose' ? 1 : 0;
    } catch (error) {
      // The task may have gone while we asked (a terminate end event on a parallel path): settle again.
      if (!(EngineError.is(error) && error.code === EngineErrorCode.NotFound)) throw error;
    }
  }
}

/**
 * Shows the operator the instance's touchpoints still ahead or now; true when approved or when there is
 * nothing to show (none left, or an instance started before touchpoints were tracked).
 */
async function approveRest(session: Session, operator: TerminalOperator, instanceId: string): Promise<boolean> {
  const touchpoints = (await session.engine.instance(instanceId))?.touchpoints ?? [];
  const rest = touchpoints.filter((touchpoint) => touchpoint.state === 'ahead' || touchpoint.state === 'now');
  if (rest.length === 0) return true;
  return (await operator.brief(rest)) === 'approved';
}

/**
 * Waits, in this process, until the instance's earliest BPMN timer has fired (or no timer is left:
 * `settled({ timers: 'wait', retries: 'wait' })`); the caller then settles the instance again and decides anew.
 */
async function waitForTimer(
  session: Session,
  instanceId: string,
  timer: WaitingState['timers'][number],
): Promise<void> {
  const { engine } = session;
  const { clock } = session.io;
  const inMs = Math.max(0, timer.dueAt - clock.now());
  session.out.progress(
    `[${instanceId.slice(0, 8)}] ${timer.elementId}: waiting for the timer due at ${new Date(timer.dueAt).toISOString()} (in ${humanDuration(inMs)})`,
  );
  let unsubscribe = (): void => {};
  let sleep: unknown;
  const fired = new Promise<void>((resolve) => {
    unsubscribe = engine.on('timer.fired', (event) => {
      if (event.instanceId === instanceId) resolve();
    });
  });
  // All timers gone (the last one fired, or the branch holding them ended) also ends the wait.
  const noTimers = engine.settled(instanceId, { timers: 'wait', retries: 'wait' }).then(() => undefined);
  noTimers.catch(() => {}); // a broken loop is reported by the next settle, not as an unhandled rejection
  // A safety net should the timer fire between the settle and the subscription above: look again once due.
  const due = new Promise<void>((resolve) => {
    sleep = clock.setTimeout(resolve, Math.min(inMs + 250, MAX_TIMEOUT_MS));
  });
  try {
    await Promise.race([fired, noTimers, due]);
  } finally {
    unsubscribe();
    clock.clearTimeout(sleep);
  }
}

/** Why an instance waiting on no user task parks: what it waits for. */
function eventReason(state: WaitingState, waitTimers: number, now: number): string {
  const waits = [
    ...state.subscriptions.map((subscription) =>
      subscription.kind === 'message'
        ? `message ${subscription.name} (${keyText(subscription.correlationKey)})`
        : `signal ${subscription.name}`,
    ),
    ...state.timers.map((timer) => `timer ${timer.elementId} due in ${humanDuration(Math.max(0, timer.dueAt - now))}`),
    ...state.adHocSubProcesses
      .filter((adHoc) => !adHoc.done)
      .map((adHoc) => `activations of ad-hoc sub-process ${adHoc.elementId}`),
  ];
  if (waits.length === 0) return 'it waits for something the CLI cannot give';
  const beyond = state.timers.length > 0 ? ` (later than --wait-timers ${isoDuration(waitTimers)})` : '';
  return `it waits for ${waits.join(', ')}${beyond}`;
}

/** `key M-9`, or `no key`. */
export function keyText(correlationKey: string | null): string {
  return correlationKey === null ? 'no key' : `key ${correlationKey}`;
}

function parked(session: Session, base: OutcomeBase, state: WaitingState, reason: string): ParkedOutcome {
  const open = state.userTasks.map(taskInfo);
  const memory = session.store.kind === 'memory';
  const id = shellQuote(base.instanceId);
  const flags = continueFlags(session);
  const now = session.io.clock.now();
  const timers = state.timers.map((timer): TimerInfo => {
    const info: TimerInfo = {
      elementId: timer.elementId,
      dueAt: timer.dueAt,
      due: new Date(timer.dueAt).toISOString(),
    };
    // With a user task open, a resume parks on the task at once: waiting for the timer is not on offer.
    if (memory || open.length > 0) return info;
    // Whole seconds, rounded up, so that the wait still covers the due time.
    const wait = isoDuration(Math.max(1000, Math.ceil((timer.dueAt - now) / 1000) * 1000));
    return { ...info, waitCommand: `thresher resume ${id} --wait-timers ${wait}${flags}` };
  });
  const subscriptions = state.subscriptions.map((subscription): SubscriptionInfo => {
    const { elementId, kind, name: named, correlationKey } = subscription;
    const info: SubscriptionInfo = { elementId, kind, name: named, correlationKey };
    if (memory) return info;
    const name = shellQuote(subscription.name);
    if (subscription.kind === 'signal') return { ...info, command: `thresher signal ${name}${flags}` };
    const key = subscription.correlationKey === null ? '' : ` --key ${shellQuote(subscription.correlationKey)}`;
    return { ...info, command: `thresher send ${name}${key}${flags}` };
  });
  const adHocSubProcesses = state.adHocSubProcesses
    .filter((adHoc) => !adHoc.done)
    .map((adHoc): AdHocInfo => {
      const activatable = adHoc.activatable.map((element) => element.elementId);
      const info: AdHocInfo = { id: adHoc.id, elementId: adHoc.elementId, activatable };
      if (memory) return info;
      const element = shellQuote(activatable[0] ?? 'ELEMENT');
      return { ...info, command: `thresher activate ${id} ${shellQuote(adHoc.elementId)} ${element}${flags}` };
    });
  const outcome = {
    status: 'parked' as const,
    ...base,
    userTasks: open,
    timers,
    subscriptions,
    adHocSubProcesses,
    reason,
  };
  if (memory) return { ...outcome, commands: [] };
  const commands = [
    ...open.map((task) => `thresher complete ${id} ${shellQuote(taskArgument(task, open))} --var k=v${flags}`),
    ...adHocSubProcesses.flatMap((adHoc) => (adHoc.command ? [adHoc.command] : [])),
    ...new Set(subscriptions.flatMap((subscription) => (subscription.command ? [subscription.command] : []))),
    `thresher resume ${id}${flags}`,
  ];
  return { ...outcome, commands };
}
