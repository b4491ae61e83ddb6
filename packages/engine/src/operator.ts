import type { Variables } from '@thresher/checkpoint';
import { InvalidStateError, NotFoundError } from './common/errors.js';
import type { LiveTouchpoint } from './common/touchpoint-types.js';
import type { Engine } from './engine.js';
import type { SettledOptions, SettledState } from './runtime/base/settled-types.js';
import type { StartOptions } from './runtime/base/types.js';
import type { Operator, OperatorAnswer, OperatorQuestion } from './touchpoints/types.js';

/** How `runWithOperator` ended: the briefing declined, the operator stopped at a choice, or the run settled. */
export type OperatorRun =
  | { outcome: 'declined' }
  | { outcome: 'stopped'; instanceId: string; question: OperatorQuestion }
  | { outcome: 'settled'; instanceId: string; state: SettledState };

export interface OperatorRunOptions {
  /** Linked Camunda forms by form id, for user tasks whose options come from one. */
  forms?: ReadonlyMap<string, unknown>;
  /** How long the run is followed: as `engine.settled` (timers and retries listed, or waited out). */
  settled?: SettledOptions;
}

/**
 * Run with a person at hand: the operator is shown the run's touchpoints first (no approval, no run), then
 * every user task is put to it, one at a time, and answered through `engine.completeUserTask` — the run
 * cannot tell an operator's answer from any other caller's. Returns once the instance has settled without
 * an open user task, or the operator stopped (the instance stays as it is, durable, for a later answer).
 * `run` starts a new instance, or follows an existing one (briefed on its touchpoints still ahead or open).
 */
export async function runWithOperator(
  engine: Engine,
  run: { processId: string; start?: StartOptions } | { instanceId: string },
  operator: Operator,
  options: OperatorRunOptions = {},
): Promise<OperatorRun> {
  let briefing: LiveTouchpoint[];
  if ('instanceId' in run) {
    const view = await engine.instance(run.instanceId);
    if (!view) throw new NotFoundError('instance', run.instanceId);
    briefing = (view.touchpoints ?? []).filter((touchpoint) => ['ahead', 'now'].includes(touchpoint.state));
  } else {
    briefing = await engine.plannedTouchpoints(run.processId, run.start?.digest);
  }
  try {
    if (briefing.length > 0 && !(await operator.approve(briefing))) return { outcome: 'declined' };
    const instanceId = 'instanceId' in run ? run.instanceId : await engine.start(run.processId, run.start);
    for (;;) {
      const state = await engine.settled(instanceId, options.settled);
      // A task whose listeners are running (or stopped by an incident) takes no answer until they are done.
      const task = state.status === 'waiting' ? state.userTasks.find((open) => open.state === 'created') : undefined;
      if (!task) return { outcome: 'settled', instanceId, state };
      const question = await engine.question(task.id, { forms: options.forms });
      const answer = await untilGone(engine, question, operator);
      if (answer === GONE) continue; // answered elsewhere, or its boundary timer fired: look again
      if (answer === null) return { outcome: 'stopped', instanceId, question };
      await answerQuestion(engine, question, answer);
    }
  } finally {
    operator.stop?.();
  }
}

const GONE = Symbol('gone');

/**
 * The operator's answer, or GONE when the task closed while it was asked (another caller completed it, a
 * boundary timer fired): the operator is then stopped, not waited for — no prompt outlives its question.
 */
async function untilGone(
  engine: Engine,
  question: OperatorQuestion,
  operator: Operator,
): Promise<OperatorAnswer | typeof GONE> {
  let unsubscribe = (): void => {};
  const gone = new Promise<typeof GONE>((resolve) => {
    unsubscribe = engine.on('checkpoint.saved', (event) => {
      if (event.instanceId !== question.instanceId) return;
      void engine.instance(question.instanceId).then((view) => {
        if (!view?.userTasks.some((task) => task.id === question.taskId)) resolve(GONE);
      });
    });
  });
  try {
    const answer = await Promise.race([operator.choose(question), gone]);
    if (answer === GONE) operator.stop?.();
    return answer;
  } finally {
    unsubscribe();
  }
}

/**
 * Complete the question's user task with an answer: an option id (its variables), or variables as given.
 * Throws `InvalidStateError` for an id that names no option.
 */
export async function answerQuestion(
  engine: Engine,
  question: OperatorQuestion,
  answer: string | Variables,
): Promise<void> {
  if (typeof answer !== 'string') return engine.completeUserTask(question.taskId, answer);
  const option = question.options.find((candidate) => candidate.id === answer);
  if (!option) {
    const ids = question.options.map((candidate) => `"${candidate.id}"`).join(', ') || 'none';
    throw new InvalidStateError(
      `"${answer}" is not an option of user task ${question.elementId} (${question.taskId}); its options: ${ids}`,
    );
  }
  await engine.completeUserTask(question.taskId, option.variables);
}
