import type { IncidentRecord, Variables } from '@thresher/checkpoint';
import { EngineError, EngineErrorCode, type SettledState, type UserTaskView } from '@thresher/engine';
import { ExitCode } from './exit-code.js';
import { formatVariables, humanDuration, isoDuration, shellQuote } from './output.js';
import type { Session } from './session.js';
import { parseVar } from './vars.js';

/**
 * How open user tasks are answered while driving an instance:
 * - `prompt`: ask on the terminal, `k=v` lines until an empty line;
 * - `yes`: complete each with no extra variables;
 * - `stdin`: one JSON object line per task from (non-terminal) stdin;
 * - `park`: answer nothing; the instance waits, durable, for `thresher complete`.
 * End of input in `prompt` and `stdin` parks too.
 */
export type AnswerMode = 'prompt' | 'yes' | 'stdin' | 'park';

/** A guard against a model that loops through a user task forever under `--yes`. */
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

interface OutcomeBase {
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
  /**
   * Commands that continue the instance: `complete` per user task, `send`/`signal` per subscription, then
   * `resume` last; empty for the `memory:` store, which keeps nothing.
   */
  commands: string[];
  /** Set when a stdin answer was unusable: the instance is parked but the run exits 2. */
  invalidAnswer?: string;
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
      return outcome.invalidAnswer ? ExitCode.Usage : ExitCode.Parked;
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
 * waiting on user tasks, the first is answered as `mode` says and the loop goes on. When it waits on no
 * user task but on BPMN timers, the drive waits for the earliest one if it falls due within
 * `options.waitTimers`, and parks otherwise (as it does on messages and signals).
 */
export async function drive(
  session: Session,
  instanceId: string,
  mode: AnswerMode,
  options: DriveOptions = {},
): Promise<Outcome> {
  const { engine } = session;
  const waitTimers = options.waitTimers ?? DEFAULT_WAIT_TIMERS_MS;
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
    const task = state.userTasks[0];
    if (!task) {
      const next = state.timers[0];
      if (next && next.dueAt - session.io.clock.now() <= waitTimers) {
        await waitForTimer(session, instanceId, next);
        continue;
      }
      return parked(session, base, state, eventReason(state, waitTimers, session.io.clock.now()));
    }
    if (mode === 'yes' && autoCompleted >= MAX_AUTO_COMPLETIONS) {
      return parked(
        session,
        base,
        state,
        `--yes completed ${MAX_AUTO_COMPLETIONS} user tasks; the model seems to loop`,
      );
    }
    const answer = await answerTask(session, task, mode);
    if (answer.kind === 'park') return parked(session, base, state, answer.reason);
    if (answer.kind === 'invalid') {
      return { ...parked(session, base, state, 'a stdin answer was unusable'), invalidAnswer: answer.message };
    }
    try {
      await engine.completeUserTask(task.id, answer.variables);
      autoCompleted += mode === 'yes' ? 1 : 0;
    } catch (error) {
      // The task may have gone while we asked (a terminate end event on a parallel path): settle again.
      if (!(EngineError.is(error) && error.code === EngineErrorCode.NotFound)) throw error;
    }
  }
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
    const info: SubscriptionInfo = { ...subscription };
    if (memory) return info;
    const name = shellQuote(subscription.name);
    if (subscription.kind === 'signal') return { ...info, command: `thresher signal ${name}${flags}` };
    const key = subscription.correlationKey === null ? '' : ` --key ${shellQuote(subscription.correlationKey)}`;
    return { ...info, command: `thresher send ${name}${key}${flags}` };
  });
  const outcome = { status: 'parked' as const, ...base, userTasks: open, timers, subscriptions, reason };
  if (memory) return { ...outcome, commands: [] };
  const commands = [
    ...open.map((task) => `thresher complete ${id} ${shellQuote(taskArgument(task, open))} --var k=v${flags}`),
    ...new Set(subscriptions.flatMap((subscription) => (subscription.command ? [subscription.command] : []))),
    `thresher resume ${id}${flags}`,
  ];
  return { ...outcome, commands };
}

type Answer =
  | { kind: 'complete'; variables: Variables }
  | { kind: 'park'; reason: string }
  | { kind: 'invalid'; message: string };

async function answerTask(session: Session, task: UserTaskView, mode: AnswerMode): Promise<Answer> {
  const label = `user task ${task.name ? `"${task.name}" ` : ''}(${task.elementId})`;
  switch (mode) {
    case 'yes':
      session.out.progress(`[${task.instanceId.slice(0, 8)}] ${task.elementId}: completed by --yes`);
      return { kind: 'complete', variables: {} };
    case 'park':
      return { kind: 'park', reason: `${label} needs an answer` };
    case 'stdin':
      return answerFromStdin(session, task, label);
    case 'prompt':
      return answerFromPrompt(session, task, label);
  }
}

/** One JSON object line per task; blank lines are skipped. */
async function answerFromStdin(session: Session, task: UserTaskView, label: string): Promise<Answer> {
  for (;;) {
    const line = await session.lines().next();
    if (line === undefined) return { kind: 'park', reason: `no answer for ${label} on stdin` };
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return {
        kind: 'invalid',
        message: `the stdin answer for ${label} is not a JSON object (e.g. {"approved":true}): ${line.trim()}`,
      };
    }
    session.out.progress(`[${task.instanceId.slice(0, 8)}] ${task.elementId}: answered from stdin`);
    return { kind: 'complete', variables: value as Variables };
  }
}

/** Asks on the terminal (stderr, so `--json` stdout stays one document): `k=v` lines, an empty line ends. */
async function answerFromPrompt(session: Session, task: UserTaskView, label: string): Promise<Answer> {
  const { stderr } = session.io;
  stderr.write(`\nTask ${task.name ?? task.elementId} (${task.elementId}) of instance ${task.instanceId}\n`);
  if (Object.keys(task.variables).length > 0) stderr.write(`${formatVariables(task.variables)}\n`);
  stderr.write(
    'Enter variables as k=v, one per line; an empty line completes the task, end of input (Ctrl-D) parks it.\n',
  );
  const variables: Variables = {};
  for (;;) {
    stderr.write('> ');
    const line = await session.lines().next();
    if (line === undefined) {
      stderr.write('\n');
      return { kind: 'park', reason: `input ended before ${label} was completed` };
    }
    if (line.trim() === '') return { kind: 'complete', variables };
    try {
      const [name, value] = parseVar(line.trim(), 'answer');
      Object.defineProperty(variables, name, { value, enumerable: true, writable: true, configurable: true });
    } catch (error) {
      stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}
