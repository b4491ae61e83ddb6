/**
 * Every refusal the API gives is a problem (RFC 9457, `application/problem+json`) with the status and title
 * Camunda 8.8 answers the same request with: its titles are the rejection's kind (`INVALID_ARGUMENT`,
 * `NOT_FOUND`, `INVALID_STATE`, ...), its detail says what was wrong and where.
 */

/** A problem's kind: the title Camunda gives it, and the status it answers with. */
export const ProblemKind = {
  InvalidArgument: { title: 'INVALID_ARGUMENT', status: 400 },
  Unauthorized: { title: 'UNAUTHORIZED', status: 401 },
  Forbidden: { title: 'FORBIDDEN', status: 403 },
  NotFound: { title: 'NOT_FOUND', status: 404 },
  MethodNotAllowed: { title: 'METHOD_NOT_ALLOWED', status: 405 },
  InvalidState: { title: 'INVALID_STATE', status: 409 },
  AlreadyExists: { title: 'ALREADY_EXISTS', status: 409 },
  PayloadTooLarge: { title: 'PAYLOAD_TOO_LARGE', status: 413 },
  UnsupportedMediaType: { title: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
  Internal: { title: 'INTERNAL_ERROR', status: 500 },
  NotImplemented: { title: 'NOT_IMPLEMENTED', status: 501 },
  Unavailable: { title: 'RESOURCE_EXHAUSTED', status: 503 },
  Timeout: { title: 'DEADLINE_EXCEEDED', status: 504 },
} as const;
export type ProblemKind = (typeof ProblemKind)[keyof typeof ProblemKind];

/** The body of a problem response, as the spec's `ProblemDetail` has it. */
export interface ProblemDetail {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
}

/** A request refused: thrown anywhere below the handler, answered as a problem response. */
export class Problem extends Error {
  override readonly name = 'Problem';

  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
  ) {
    super(`${kind.title}: ${detail}`);
  }

  get status(): number {
    return this.kind.status;
  }

  /** The response body for a request to `instance` (its path). */
  body(instance: string): ProblemDetail {
    return { type: 'about:blank', title: this.kind.title, status: this.kind.status, detail: this.detail, instance };
  }

  static is(error: unknown): error is Problem {
    return error instanceof Problem;
  }
}

/** A 400 naming what was wrong and where (`where` is a JSON path such as `$.variables`). */
export function invalid(where: string, what: string): Problem {
  return new Problem(ProblemKind.InvalidArgument, `${where}: ${what}`);
}

/** A 404 naming the kind of thing and the key that named none. */
/** What `work` finds, or undefined where it answers a 404. */
export async function unlessNotFound<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (error) {
    if (Problem.is(error) && error.status === 404) return undefined;
    throw error;
  }
}

export function notFound(thing: string, key: string): Problem {
  return new Problem(ProblemKind.NotFound, `no ${thing} with key ${key} was found`);
}
