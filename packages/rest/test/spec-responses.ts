/**
 * Every response the REST tests receive, checked against the response schema Camunda's 8.8 spec declares for its
 * operation and status. The spec is read where the project keeps it for reference (`../shared/camunda`, or
 * THRESHER_CAMUNDA_SPEC), never copied into the repository (its license); without it, no response is checked and
 * `specResponses()` says so. A status the spec does not declare (a 404 Camunda gives where the spec lists none) is
 * Camunda's behaviour, not checked against anything.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { Router } from '../src/router.js';

const SPEC =
  process.env.THRESHER_CAMUNDA_SPEC ??
  fileURLToPath(new URL('../../../../shared/camunda/rest-api-8.8.yaml', import.meta.url));

export interface SeenResponse {
  method: string;
  /** The path under `/v2`. */
  path: string;
  status: number;
  contentType: string | null;
  body: string;
}

export interface SpecResponses {
  /** What is wrong with a response, per the spec; empty when it fits (or the spec declares nothing for it). */
  check(response: SeenResponse): string[];
}

type OpenApi = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
  >;
  components: unknown;
};

/**
 * Where the spec contradicts what Camunda answers, Camunda wins: each place by operation and JSON path, and why.
 */
const CAMUNDA_WINS: readonly { operation: string; path: string; why: string }[] = [
  {
    operation: 'evaluateDecision',
    path: '/failedDecisionDefinitionId',
    why: 'required and at least one character, yet Zeebe answers "" when no decision failed (as Camunda\'s SDK tests expect)',
  },
];

let loaded: SpecResponses | null | undefined;

/** OpenAPI 3.0's `nullable: true` as JSON Schema has it: null added to the type, or beside the schema. */
function jsonSchemaOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonSchemaOf);
  if (typeof value !== 'object' || value === null) return value;
  const { nullable, ...rest } = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, jsonSchemaOf(inner)]),
  ) as Record<string, unknown>;
  if (nullable !== true) return rest;
  if (typeof rest.type === 'string') return { ...rest, type: [rest.type, 'null'] };
  return { anyOf: [rest, { type: 'null' }] };
}

/** The checker, or null when the spec is not on this machine. */
export function specResponses(): SpecResponses | null {
  if (loaded !== undefined) return loaded;
  if (!existsSync(SPEC)) {
    loaded = null;
    return loaded;
  }
  const spec = parse(readFileSync(SPEC, 'utf8')) as OpenApi;
  // `#/components/…` of a response's schema means the spec's components, registered as `spec`.
  const rooted = (value: unknown): unknown =>
    jsonSchemaOf(JSON.parse(JSON.stringify(value).replaceAll('"#/components/', '"spec#/components/')));
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'spec', components: rooted(spec.components) });
  const router = new Router();
  const compiled = new Map<string, ValidateFunction | null>();
  const validatorOf = (operationPath: string, method: string, status: number, media: string) => {
    const id = `${method} ${operationPath} ${status} ${media}`;
    if (!compiled.has(id)) {
      const schema =
        spec.paths[operationPath]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.[media]?.schema;
      compiled.set(id, schema === undefined ? null : ajv.compile(rooted(schema) as object));
    }
    return compiled.get(id)!;
  };
  loaded = {
    check(response) {
      let routed: ReturnType<Router['route']>;
      try {
        routed = router.route(response.method, response.path.split('?')[0]!);
      } catch {
        return []; // no operation at that path: the router's own 404/405, not an operation's answer
      }
      const media = (response.contentType ?? '').split(';')[0]!.trim();
      if (response.body === '' || !media.endsWith('json')) return [];
      const validate = validatorOf(routed.operation.path, routed.operation.method, response.status, media);
      if (validate === null) return [];
      if (validate(JSON.parse(response.body))) return [];
      const where = `${response.method} ${response.path} → ${response.status} (${routed.operation.id})`;
      return (validate.errors ?? [])
        .filter(
          (error) =>
            // A oneOf of key schemas alike (a resource key is one of four int64 keys) matches every branch at once.
            !(error.keyword === 'oneOf' && Array.isArray(error.params.passingSchemas)) &&
            !CAMUNDA_WINS.some((win) => win.operation === routed.operation.id && win.path === error.instancePath),
        )
        .map((error) => `${where}: ${error.instancePath || '$'} ${error.message}`);
    },
  };
  return loaded;
}
