/** Marks Thresher engine errors so checks survive duplicate package copies. */
const ENGINE_ERROR = Symbol.for('thresher.engine.error');
const BPMN_ERROR = Symbol.for('thresher.engine.bpmn-error');

/** Stable error codes of `@thresher/engine`; branch on these, not on messages. */
export const EngineErrorCode = {
  Model: 'THRESHER_MODEL',
  NotFound: 'THRESHER_NOT_FOUND',
  InvalidState: 'THRESHER_INVALID_STATE',
  InvalidArgument: 'THRESHER_INVALID_ARGUMENT',
  IllegalTransition: 'THRESHER_ILLEGAL_TRANSITION',
  Expression: 'THRESHER_EXPRESSION',
  Closed: 'THRESHER_ENGINE_CLOSED',
  Restore: 'THRESHER_RESTORE',
  RollbackRefused: 'THRESHER_ROLLBACK_REFUSED',
  InstanceHeld: 'THRESHER_INSTANCE_HELD',
  ListenerFailed: 'THRESHER_LISTENER_FAILED',
  AlreadyExists: 'THRESHER_ALREADY_EXISTS',
} as const;
export type EngineErrorCode = (typeof EngineErrorCode)[keyof typeof EngineErrorCode];

/** Base class of every error the engine raises. */
export class EngineError extends Error {
  readonly [ENGINE_ERROR] = true;
  readonly code: EngineErrorCode;

  constructor(code: EngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(`${code}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  static is(value: unknown): value is EngineError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ENGINE_ERROR] === true;
  }
}

/** A recoverable issue found while compiling, carried by a `ModelError`. */
export interface ModelIssue {
  elementId: string | null;
  elementType: string | null;
  message: string;
  line?: number;
}

/**
 * A model Thresher will not run: malformed XML, a dangling reference, an expression that does not parse,
 * or an element it does not execute. Names the element (id and type) and, where known, the line.
 */
export class ModelError extends EngineError {
  readonly elementId: string | null;
  readonly elementType: string | null;
  readonly line: number | undefined;
  /** Every problem found, the first of which is the message. */
  readonly issues: ModelIssue[];
  /** Which file it is about (0-based) when several are deployed together (`deployTogether`). */
  fileIndex: number | undefined = undefined;

  constructor(issues: ModelIssue[]) {
    const first = issues[0] ?? { elementId: null, elementType: null, message: 'invalid model' };
    const where = first.elementId ? `${first.elementType ?? 'element'} "${first.elementId}"` : 'model';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(EngineErrorCode.Model, `${where}: ${first.message}${first.line ? ` (line ${first.line})` : ''}${more}`);
    this.elementId = first.elementId;
    this.elementType = first.elementType;
    this.line = first.line;
    this.issues = issues;
  }
}

/** An instance, task, incident or process that does not exist. */
export class NotFoundError extends EngineError {
  constructor(
    readonly kind:
      | 'instance'
      | 'userTask'
      | 'incident'
      | 'process'
      | 'deployment'
      | 'handler'
      | 'adHocSubProcess'
      | 'decision'
      | 'job'
      | 'elementInstance'
      | 'scope',
    readonly id: string,
  ) {
    super(EngineErrorCode.NotFound, `no ${kind} "${id}"`);
  }
}

/** A message published with the `messageId` of one still buffered (Zeebe refuses it too): nothing was kept. */
export class AlreadyExistsError extends EngineError {
  constructor(message: string) {
    super(EngineErrorCode.AlreadyExists, message);
  }
}

/** A request that does not fit the instance's state (completing a task twice, starting on a closed engine). */
export class InvalidStateError extends EngineError {
  constructor(message: string) {
    super(EngineErrorCode.InvalidState, message);
  }
}

/** A caller's value that does not fit what it is for (a user task's priority out of 0–100, a date that is no date-time). */
export class InvalidArgumentError extends EngineError {
  constructor(message: string) {
    super(EngineErrorCode.InvalidArgument, message);
  }
}

/** A machine was asked to take a transition its lifecycle does not allow: a bug, never a state that drifts. */
export class IllegalTransitionError extends EngineError {
  constructor(
    readonly machine: string,
    readonly state: string,
    readonly event: string,
  ) {
    super(EngineErrorCode.IllegalTransition, `${machine} in state "${state}" cannot take "${event}"`);
  }
}

/**
 * Thrown by a handler to raise a BPMN error (by `code`) instead of failing: it is not retried. Until error
 * events are executed, an uncaught BPMN error raises an incident on its task (never a silent end).
 */
export class BpmnError extends Error {
  readonly [BPMN_ERROR] = true;
  constructor(
    readonly errorCode: string,
    message?: string,
  ) {
    super(message ?? `BPMN error ${errorCode}`);
    this.name = 'BpmnError';
  }

  static is(value: unknown): value is BpmnError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BPMN_ERROR] === true;
  }
}

/** A FEEL expression that failed to evaluate at run time. */
export class ExpressionError extends EngineError {
  constructor(
    readonly elementId: string,
    readonly expression: string,
    reason: string,
  ) {
    super(EngineErrorCode.Expression, `expression "${expression}" of "${elementId}" failed: ${reason}`);
  }
}

/** An instance whose stored state cannot be brought back (missing deployment, unknown element). */
export class RestoreError extends EngineError {
  constructor(
    readonly instanceId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(EngineErrorCode.Restore, `instance ${instanceId} cannot be restored: ${reason}`, options);
  }
}

/** A rollback that would forget what the instance durably did, or has nothing good to go back to. */
export class RollbackRefusedError extends EngineError {
  constructor(
    readonly instanceId: string,
    readonly seq: number,
    reason: string,
  ) {
    super(EngineErrorCode.RollbackRefused, `instance ${instanceId} cannot be rolled back to seq ${seq}: ${reason}`);
  }
}

/**
 * The instance is held by another live engine (its lease): this engine neither restores nor advances it,
 * so that no step runs twice. Send the event through the holder, or wait until its lease lapses.
 */
export class InstanceHeldError extends EngineError {
  constructor(
    readonly instanceId: string,
    /** The engine holding it, as `<host>:<pid>:<nonce>` unless that engine was given an owner name. */
    readonly owner: string,
    /** Epoch ms at which the lease lapses unless its holder renews it. */
    readonly expiresAt: number,
  ) {
    super(
      EngineErrorCode.InstanceHeld,
      `instance ${instanceId} is held by engine ${JSON.stringify(owner)} until ${new Date(expiresAt).toISOString()} (renewed while it runs the instance): send the event through that engine, or retry once it has let go`,
    );
  }
}

/**
 * An `engine.on` listener threw. The instance ran on (its effects are performed whatever a listener does) and
 * the other listeners heard the event; the error is reported through `onFault` with the listener's as `cause`.
 */
export class EventListenerError extends EngineError {
  constructor(
    readonly eventType: string,
    cause: unknown,
  ) {
    super(
      EngineErrorCode.ListenerFailed,
      `a listener of ${eventType} threw: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}
