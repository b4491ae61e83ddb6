/**
 * Touchpoints (docs: packages/engine/README.md § Touchpoints): the options a plan is listed with, and the
 * operator seam a host with a person at hand implements. The shared vocabulary (marks, the static list, live
 * state) is in `common/touchpoint-types.ts`.
 *
 * @module
 */
import type { Variables } from '@thresher/checkpoint';
import type { LiveTouchpoint } from '../common/touchpoint-types.js';
import type { UserTaskDenial, UserTaskFieldsView } from '../common/user-task-types.js';

/** `touchpoints(model, options)`. */
export interface TouchpointListOptions {
  /** Only this process's touchpoints (a run's plan); default every executable process's, in document order. */
  process?: string;
  /** Processes whose touchpoints follow the others, `skipped`. */
  skip?: readonly string[];
}

/** One option of a choice. */
export interface ChoiceOption {
  /** What `--choose ELEMENT=OPTION` and `Operator.choose` name it by. */
  id: string;
  label: string;
  /** What completing the user task with this option sets. */
  variables: Variables;
}

/** Where a user task's options come from. */
export type ChoiceSource = 'form' | 'gateway' | 'variables';

/** A user task put to an operator. */
export interface OperatorQuestion {
  instanceId: string;
  /** `<instanceId>/<taskId>`, as `engine.completeUserTask` takes it. */
  taskId: string;
  elementId: string;
  touchpoint: LiveTouchpoint | null;
  /** The task's form's enum, or the conditions of the exclusive gateway after it; with neither, empty. */
  options: ChoiceOption[];
  source: ChoiceSource;
  /** When a boundary timer on the task fires (ms of the engine's clock); null when none. */
  dueAt: number | null;
  /** The task as it stands (its task listeners' corrections included), and the last transition denied. */
  task: UserTaskFieldsView & { name: string | null; denied: UserTaskDenial | null };
}

/** An answer: an option id, variables (when the question has no options), or null to stop the run. */
export type OperatorAnswer = string | Variables | null;

/** A host's person at hand: approves a run and answers its choices. The engine itself never prompts. */
export interface Operator {
  /** Shown the touchpoints before the run; false: no run. */
  approve(touchpoints: readonly LiveTouchpoint[]): boolean | Promise<boolean>;
  choose(question: OperatorQuestion): OperatorAnswer | Promise<OperatorAnswer>;
  /**
   * Stop asking what is being asked now: its task closed while it was open (its boundary timer fired,
   * another caller completed it) or the run is over. A later `choose` may follow.
   */
  stop?(): void;
}
