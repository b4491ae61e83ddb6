import type { Variables } from '@thresher/checkpoint';
import type { DmnDefinitions } from '@thresher/dmn';
import { InvalidStateError } from '../../common/errors.js';
import type { Binding, Node } from '../../model/node-types.js';
import type { ProcessDef } from '../../model/process-types.js';
import type { TimerSchedule } from '../../timers/schedule.js';
import type { Announcement, Effect } from './effects.js';
import type { InstanceState } from './state.js';

/** What the runtime hands the core for a step: the model, the clock's reading and the retry policy. */
export interface CoreContext {
  process: ProcessDef;
  /** The injected clock's reading for this step; the core reads no other time. */
  now: number;
  /** Retries of a task that does not say (`zeebe:taskDefinition retries`). */
  defaultRetries: number;
  /** Backoff in ms before retry n (1-based). */
  backoff: (failure: number) => number;
  /** Element moves after which a run that has not waited yet yields (durably), so other work gets its turn. */
  yieldAfter: number;
  /** Element moves a run may make without waiting before its tracks stop with a `step-limit` incident. */
  stepLimit: number;
  /** Entries of one element in one scope activation past which the step warns (`element.looping`). */
  loopWarning: number;
  /** The deployed decisions business rule tasks evaluate (`runtime/deployments/decisions.ts`). */
  decisions: DecisionLookup;
}

/** A deployed decision as a business rule task's binding takes it, or why there is none (an incident's message). */
export type DecisionLookup = (decisionId: string, binding: Binding, processDigest: string) => FoundDecision | string;

/** A decision found for a business rule task: the definitions that hold it and which version it is. */
export interface FoundDecision {
  definitions: DmnDefinitions;
  decisionId: string;
  version: number;
  versionTag?: string;
  /** The DMN deployment: its definitions id and digest. */
  definitionId: string;
  digest: string;
}

/**
 * Everything an element's behaviour reads and writes while one event is applied: the instance's state,
 * the model, the clock's reading, the id source and the effect sink — plus the step's own bookkeeping (the
 * agenda of tracks to move). The element modules are functions over it; none holds state of its own.
 */
export interface StepContext extends CoreContext {
  readonly state: InstanceState;
  /** The instance id. */
  readonly id: string;
  /** The effect sink: what the step publishes, performed by the runtime once the step is durable. */
  readonly effects: Effect[];
  /** Tracks with an element to enter or leave, in the order they move. */
  readonly agenda: string[];
  /** Tracks that ended or were cancelled in this step: dropped from the state when it settles. */
  readonly retired: string[];
  /** Tracks re-entering their element after an incident: not announced as entered a second time. */
  readonly reentering: Set<string>;
  /** Tracks leaving an event-based gateway in this step: the catch event each won, and its payload. */
  readonly decided: Map<string, { target: string; variables: Variables }>;
  /** Tracks a cancel in this step found terminating (a user task's canceling listeners run): what cancelled them waits. */
  readonly terminating: string[];
  /** Tracks whose termination ended in this step (their canceling listeners ran), with the scope they were in. */
  readonly terminated: { trackId: string; scopePath: string }[];
  /** A timer start event's occurrence scheduled by the one before it, for the instance this step starts. */
  presetTimer: TimerSchedule | undefined;
  /** The last event announced in this step: what a change it made next was caused by. */
  lastCause: Announcement | undefined;
  /** Told of every event right after it is announced (the touchpoint tracker). */
  readonly observe: (ctx: StepContext, event: Announcement) => void;
}

export function createStepContext(
  core: CoreContext,
  state: InstanceState,
  effects: Effect[],
  observe: StepContext['observe'] = () => {},
): StepContext {
  // Named one by one, not spread: every step context then has one shape (spreading copies whatever `core` holds).
  return {
    process: core.process,
    now: core.now,
    defaultRetries: core.defaultRetries,
    backoff: core.backoff,
    yieldAfter: core.yieldAfter,
    stepLimit: core.stepLimit,
    loopWarning: core.loopWarning,
    decisions: core.decisions,
    state,
    id: state.instance.id,
    effects,
    agenda: [],
    retired: [],
    reentering: new Set(),
    decided: new Map(),
    terminating: [],
    terminated: [],
    presetTimer: undefined,
    lastCause: undefined,
    observe,
  };
}

/** A new instance-local id from the document's counter, so ids stay the same across restores. */
export function nextId(ctx: StepContext, prefix: 't' | 'j' | 'u' | 'i' | 'w' | 'c'): string {
  return ctx.state.nextId(prefix);
}

export function announce(ctx: StepContext, event: Announcement): void {
  ctx.effects.push({ type: 'announce', event });
  ctx.observe(ctx, event);
}

export function nodeOf(ctx: StepContext, id: string): Node {
  const node = ctx.process.nodes.get(id);
  if (!node) throw new InvalidStateError(`element "${id}" is not in process ${ctx.process.id}`);
  return node;
}
