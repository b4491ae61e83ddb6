import { type AnyStateMachine, transition } from 'xstate';
import { IllegalTransitionError } from '../common/errors.js';

/**
 * The one module that calls XState. The machines under this folder state each record's lifecycle; the
 * core holds every record's state as plain data and advances it here with XState's pure `transition`,
 * which returns the next state and the actions to perform as data — the core performs them. No live
 * actor exists, so a record is checkpointed and restored as the string it holds.
 */

/** The next state of a record and what the core must do because of the move, in the machine's order. */
export interface Step<TState extends string, TAction extends string> {
  state: TState;
  actions: readonly TAction[];
}

const initialCache = new Map<AnyStateMachine, string>();
// The machines have no context and no guards: (state, event) decides the next state and its actions, so
// each pair is asked of XState once and remembered (its pure transition builds a throwaway actor per call).
const steps = new Map<string, Step<string, string> | null>();

/** The initial state value of a machine. */
export function initialState<TState extends string>(machine: AnyStateMachine): TState {
  let value = initialCache.get(machine);
  if (value === undefined) {
    value = String(machine.resolveState({ value: machine.config.initial as string, context: {} }).value);
    initialCache.set(machine, value);
  }
  return value as TState;
}

/**
 * Advance a stored state value by one event. Throws `IllegalTransitionError` when the lifecycle does not
 * allow the event from that state: a bug in the core, never a state that drifts.
 */
export function advance<TState extends string, TAction extends string>(
  machine: AnyStateMachine,
  state: string,
  type: string,
): Step<TState, TAction> {
  const key = `${machine.id}|${state}|${type}`;
  let step = steps.get(key);
  if (step === undefined) {
    const snapshot = machine.resolveState({ value: state, context: {} });
    if (machine.getTransitionData(snapshot, { type }).length === 0) step = null;
    else {
      const [next, actions] = transition(machine, snapshot, { type });
      step = { state: String(next.value), actions: Object.freeze(actions.map((action) => action.type)) };
    }
    steps.set(key, step);
  }
  if (step === null) throw new IllegalTransitionError(machine.id, state, type);
  return step as Step<TState, TAction>;
}

/**
 * How the core performs a machine's actions: one function per action the machine names (the compiler checks
 * that none is missing), given the step's context and the record's owner.
 */
export type Performers<TAction extends string, TContext, TSubject> = {
  readonly [A in TAction]: (ctx: TContext, subject: TSubject) => void;
};

/**
 * Advance a record's stored state by one event (`holder.state`), then perform the actions the move returns,
 * in the machine's order: the one way the core moves a machine. Throws `IllegalTransitionError` as `advance`.
 */
export function moveBy<TState extends string, TEvent extends string, TAction extends string, TContext, TSubject>(
  next: (state: string, event: TEvent) => Step<TState, TAction>,
  holder: { state: string },
  event: TEvent,
  performers: Performers<TAction, TContext, TSubject>,
  ctx: TContext,
  subject: TSubject,
): void {
  const step = next(holder.state, event);
  holder.state = step.state;
  for (const action of step.actions) performers[action](ctx, subject);
}
