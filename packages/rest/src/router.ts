import { Problem, ProblemKind } from './problem.js';
import { SPEC_OPERATIONS, type SpecOperation } from './spec-operations.js';

/** An operation a request named, with the path's parameters decoded. */
export interface Routed {
  operation: SpecOperation;
  params: Record<string, string>;
}

interface Route {
  operation: SpecOperation;
  pattern: RegExp;
  names: string[];
  /** Literal segments first: `/process-instances/search` wins over `/process-instances/{key}`. */
  literals: number;
}

/**
 * Finds the operation of a method and a path under `/v2`, as the spec declares them. A path no operation has
 * is a 404, a path whose operations take other methods a 405, both as problems.
 */
export class Router {
  readonly #routes: Route[];

  constructor(operations: readonly SpecOperation[] = SPEC_OPERATIONS) {
    this.#routes = operations
      .map((operation) => {
        const names: string[] = [];
        const segments = operation.path.split('/').filter((segment) => segment !== '');
        const source = segments
          .map((segment) => {
            const parameter = /^\{(\w+)\}$/.exec(segment);
            if (parameter === null) return `/${escapeRegExp(segment)}`;
            names.push(parameter[1]!);
            return '/([^/]+)';
          })
          .join('');
        return { operation, pattern: new RegExp(`^${source}/?$`), names, literals: segments.length - names.length };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  /** The operation of `method` at `path` (under `/v2`); problems name the request's path as `shown`. */
  route(method: string, path: string, shown = path): Routed {
    const allowed: string[] = [];
    for (const route of this.#routes) {
      const match = route.pattern.exec(path);
      if (match === null) continue;
      if (route.operation.method !== method) {
        allowed.push(route.operation.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => {
        params[name] = decodeSegment(match[index + 1]!, name);
      });
      return { operation: route.operation, params };
    }
    if (allowed.length > 0) {
      throw new Problem(
        ProblemKind.MethodNotAllowed,
        `${method} ${shown} is not an operation; it takes ${allowed.join(', ')}`,
      );
    }
    throw new Problem(ProblemKind.NotFound, `no operation at ${shown}`);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decodeSegment(segment: string, name: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new Problem(ProblemKind.InvalidArgument, `path parameter ${name}: "${segment}" is not a valid URI component`);
  }
}
