import { EngineError, EngineErrorCode } from '@thresher/engine';
import { Problem, ProblemKind } from './problem.js';

/** The kind of problem each engine refusal is, by its code; a code not listed is a failure (500). */
const ENGINE_KINDS: Partial<Record<EngineErrorCode, ProblemKind>> = {
  [EngineErrorCode.Model]: ProblemKind.InvalidArgument,
  [EngineErrorCode.InvalidArgument]: ProblemKind.InvalidArgument,
  [EngineErrorCode.Expression]: ProblemKind.InvalidArgument,
  [EngineErrorCode.NotFound]: ProblemKind.NotFound,
  [EngineErrorCode.InvalidState]: ProblemKind.InvalidState,
  [EngineErrorCode.IllegalTransition]: ProblemKind.InvalidState,
  [EngineErrorCode.RollbackRefused]: ProblemKind.InvalidState,
  [EngineErrorCode.InstanceHeld]: ProblemKind.Unavailable,
  [EngineErrorCode.Closed]: ProblemKind.Unavailable,
  [EngineErrorCode.AlreadyExists]: ProblemKind.AlreadyExists,
};

/** The store's refusals of a caller's value (`@thresher/checkpoint`), by code: a value it cannot hold. */
const VALUE_CODES = new Set(['THRESHER_UNENCODABLE_VALUE', 'THRESHER_LIMIT_EXCEEDED']);

/** A refusal by the engine or its store as the problem Camunda answers it with; undefined for a failure. */
export function problemOfEngine(error: unknown): Problem | undefined {
  if (EngineError.is(error)) {
    const kind = ENGINE_KINDS[error.code];
    return kind === undefined ? undefined : new Problem(kind, withoutCode(error.message, error.code));
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && VALUE_CODES.has(code)) {
    return new Problem(ProblemKind.InvalidArgument, withoutCode((error as Error).message, code));
  }
  return undefined;
}

function withoutCode(message: string, code: string): string {
  return message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
}
