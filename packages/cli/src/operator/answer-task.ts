import type { Variables } from '@thresher/checkpoint';
import type { OperatorQuestion, UserTaskView } from '@thresher/engine';
import type { Session } from '../session.js';
import { noSuchOption, pickOption } from './choose.js';
import type { TerminalOperator } from './terminal-operator.js';

/**
 * How the drive gets the answer to an open user task: given up front (`--choose`), or as the answer
 * mode says — the terminal operator (`prompt`), `--yes`, a JSON line on stdin, or none (`park`).
 *
 * @module
 */

/**
 * How open user tasks are answered while driving an instance:
 * - `prompt`: the terminal operator puts each task to the person as a numbered choice (`Choose [1-N]`);
 * - `yes`: complete each with no extra variables;
 * - `stdin`: one JSON object line per task from (non-terminal) stdin;
 * - `park`: answer nothing; the instance waits, durable, for `thresher complete`.
 * End of input in `prompt` and `stdin` parks too. A `--choose` answer for the task's element comes first
 * in every mode.
 */
export type AnswerMode = 'prompt' | 'yes' | 'stdin' | 'park';

/** What answers a task besides the mode. */
export interface AnswerSources {
  mode: AnswerMode;
  /** `--choose ELEMENT=OPTION`, by element id. */
  choose?: ReadonlyMap<string, string>;
  /** The person at the terminal (mode `prompt`). */
  operator?: TerminalOperator;
}

/** What to do with a task: complete it, answer its question, look again, or stop driving. */
export type Answer =
  | { kind: 'complete'; variables: Variables; by: 'yes' | 'stdin' }
  | { kind: 'question'; question: OperatorQuestion; answer: string | Variables; by: 'choose' | 'operator' }
  /** The task closed while it was asked (its timer fired): settle again. */
  | { kind: 'again' }
  | { kind: 'park'; reason: string; operator?: 'stopped' }
  | { kind: 'invalid'; message: string };

/** `user task "Approve order" (approve)`, as messages name a task. */
export const taskLabel = (task: UserTaskView): string =>
  `user task ${task.name ? `"${task.name}" ` : ''}(${task.elementId})`;

const at = (task: UserTaskView): string => `[${task.instanceId.slice(0, 8)}] ${task.elementId}`;

/** The answer to `task`: its `--choose` first, then as `sources.mode` says. */
export async function answerTask(session: Session, task: UserTaskView, sources: AnswerSources): Promise<Answer> {
  const label = taskLabel(task);
  const preset = sources.choose?.get(task.elementId);
  if (preset !== undefined) return answerPreset(session, task, preset);
  switch (sources.mode) {
    case 'yes':
      session.out.progress(`${at(task)}: completed by --yes`);
      return { kind: 'complete', variables: {}, by: 'yes' };
    case 'park':
      return { kind: 'park', reason: `${label} needs an answer` };
    case 'stdin':
      return answerFromStdin(session, task, label);
    case 'prompt':
      if (!sources.operator) throw new Error('thresher: the prompt answer mode needs a terminal operator');
      return answerFromOperator(session, task, sources.operator);
  }
}

/** `--choose ELEMENT=OPTION`: the option with that id, else the one numbered so; none is a usage error. */
async function answerPreset(session: Session, task: UserTaskView, value: string): Promise<Answer> {
  const question = await session.engine.question(task.id);
  const option = pickOption(question.options, value);
  if (!option) return { kind: 'invalid', message: noSuchOption(task.elementId, value, question.options) };
  session.out.progress(`${at(task)}: chose ${option.id} (${option.label}) by --choose ${task.elementId}=${value}`);
  return { kind: 'question', question, answer: option.id, by: 'choose' };
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
    session.out.progress(`${at(task)}: answered from stdin`);
    return { kind: 'complete', variables: value as Variables, by: 'stdin' };
  }
}

/**
 * Puts the task to the terminal operator as a choice. The question is withdrawn when the task closes
 * while it is asked (a boundary timer fired): no prompt outlives its task.
 */
async function answerFromOperator(session: Session, task: UserTaskView, operator: TerminalOperator): Promise<Answer> {
  const { engine } = session;
  const question = await engine.question(task.id);
  const total = (await engine.instance(task.instanceId))?.touchpoints?.length;
  const closed = new AbortController();
  const stillOpen = async (): Promise<void> => {
    const open = await engine.userTasks({ instanceId: task.instanceId }).catch(() => []);
    if (!open.some((candidate) => candidate.id === task.id)) closed.abort();
  };
  const unsubscribe = engine.on('timer.fired', (event) => {
    if (event.instanceId === task.instanceId) void stillOpen();
  });
  try {
    const reply = await operator.ask(question, {
      name: task.name,
      signal: closed.signal,
      ...(total === undefined ? {} : { total }),
    });
    switch (reply.kind) {
      case 'answer':
        return { kind: 'question', question, answer: reply.answer, by: 'operator' };
      case 'withdrawn':
        return { kind: 'again' };
      case 'stop':
        return { kind: 'park', reason: `you stopped at ${taskLabel(task)}`, operator: 'stopped' };
      case 'ended':
        return { kind: 'park', reason: `input ended before ${taskLabel(task)} was answered` };
    }
  } finally {
    unsubscribe();
  }
}
