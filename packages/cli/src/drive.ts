import type { IncidentRecord, Variables } from '@thresher/checkpoint';
import { EngineError, EngineErrorCode, type UserTaskView } from '@thresher/engine';
import { ExitCode } from './exit-code.js';
import { formatVariables, shellQuote } from './output.js';
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
  /** The command that resolves it and drives the instance on. */
  retry: string;
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
  /** Commands that continue the instance; empty for the `memory:` store, which keeps nothing. */
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
 * waiting on user tasks, the first is answered as `mode` says and the loop goes on.
 */
export async function drive(session: Session, instanceId: string, mode: AnswerMode): Promise<Outcome> {
  const { engine } = session;
  let autoCompleted = 0;
  for (;;) {
    const state = await engine.settled(instanceId);
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
      const incidents = state.incidents.map((incident): IncidentInfo => {
        const localId = localIdOf(incident.id);
        return {
          id: incident.id,
          localId,
          elementId: incident.nodeId,
          kind: incident.kind,
          message: incident.message,
          retry: `thresher retry ${shellQuote(instanceId)} ${shellQuote(localId)}${continueFlags(session)}`,
        };
      });
      return { status: 'incident', ...base, incidents, userTasks: open };
    }
    const task = state.userTasks[0];
    if (!task) return parked(session, base, open, 'it waits for something the CLI cannot give');
    if (mode === 'yes' && autoCompleted >= MAX_AUTO_COMPLETIONS) {
      return parked(session, base, open, `--yes completed ${MAX_AUTO_COMPLETIONS} user tasks; the model seems to loop`);
    }
    const answer = await answerTask(session, task, mode);
    if (answer.kind === 'park') return parked(session, base, open, answer.reason);
    if (answer.kind === 'invalid') {
      return { ...parked(session, base, open, 'a stdin answer was unusable'), invalidAnswer: answer.message };
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

function parked(session: Session, base: OutcomeBase, open: TaskInfo[], reason: string): ParkedOutcome {
  if (session.store.kind === 'memory') return { status: 'parked', ...base, userTasks: open, reason, commands: [] };
  const id = shellQuote(base.instanceId);
  const flags = continueFlags(session);
  const commands = [
    ...open.map((task) => `thresher complete ${id} ${shellQuote(taskArgument(task, open))} --var k=v${flags}`),
    `thresher resume ${id}${flags}`,
  ];
  return { status: 'parked', ...base, userTasks: open, reason, commands };
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
