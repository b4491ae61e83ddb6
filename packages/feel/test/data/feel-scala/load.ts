/**
 * Loads feel-scala's test cases (this folder's `<Suite>.json` files) and checks their shape. Values stay in the
 * tagged encoding of this folder's README: decoding them is the evaluator test's business.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A value in the data's tagged encoding (see README.md). */
export type TaggedValue =
  | null
  | boolean
  | string
  | TaggedValue[]
  | { $number: string }
  | { $date: string }
  | { $time: string }
  | { $dateTime: string }
  | { $duration: string }
  | { $yearMonthDuration: string }
  | { $context: Array<[string, TaggedValue]> };

/** A failure feel-scala reports while still returning a result (`EvaluationResult.suppressedFailures`). */
export interface SuppressedFailure {
  /** The `EvaluationFailureType` name, e.g. `NO_VARIABLE_FOUND`. */
  type: string;
  /** The failure message, exactly. */
  message: string;
}

/** What a case expects of the evaluation. */
export type Expectation =
  | TaggedValue
  | { $failure: string }
  | { $null: true; suppressed: SuppressedFailure[] }
  | { $result: TaggedValue; suppressed: SuppressedFailure[] }
  | { $anyResult: true; suppressed: SuppressedFailure[] };

/** One FEEL evaluation feel-scala's tests assert on. */
export interface FeelScalaCase {
  /** `<Suite>:<line>`, `:row<k>` for a table or loop row, `#<n>` for a further call on the same line. */
  id: string;
  /** `<path in feel-scala>:<line>` of the evaluation call. */
  source: string;
  /** The ScalaTest test name (`<subject> should <description>`). */
  test: string;
  /** `api`: FeelEngineApi with results mapped to Java values; `interpreter`: the interpreter's own values. */
  harness: 'api' | 'interpreter';
  kind: 'expression' | 'unaryTests';
  expression: string;
  /** The unary tests' input value; absent when the tests are evaluated with no input value at all. */
  input?: TaggedValue;
  variables?: Record<string, TaggedValue>;
  expect: Expectation;
}

/** One suite's file. */
export interface FeelScalaSuite {
  suite: string;
  /** The Scala file's path in feel-scala. */
  source: string;
  cases: FeelScalaCase[];
}

/** A data file whose content does not have the documented shape; `path` names the file and the place in it. */
export class FeelScalaDataError extends Error {
  readonly code = 'FEEL_SCALA_DATA_INVALID';

  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'FeelScalaDataError';
  }
}

/** This folder. */
export const feelScalaDataDir: string = fileURLToPath(new URL('.', import.meta.url));

const STRING_TAGS = ['$number', '$date', '$time', '$dateTime', '$duration', '$yearMonthDuration'] as const;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkValue(value: Json | undefined, where: string, file: string): void {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return;
  if (typeof value === 'number') {
    throw new FeelScalaDataError(file, `${where} is a JSON number; numbers are {"$number": "<decimal>"}`);
  }
  if (value === undefined) throw new FeelScalaDataError(file, `${where} is missing`);
  if (Array.isArray(value)) {
    value.forEach((item, k) => {
      checkValue(item, `${where}[${k}]`, file);
    });
    return;
  }
  const keys = Object.keys(value);
  if (keys.length !== 1) throw new FeelScalaDataError(file, `${where} has keys ${keys.join(', ')}; expected one tag`);
  const [tag] = keys as [string];
  const inner = value[tag];
  if ((STRING_TAGS as readonly string[]).includes(tag)) {
    if (typeof inner !== 'string') throw new FeelScalaDataError(file, `${where}.${tag} is not a string`);
    if (tag === '$number' && !/^-?\d+(\.\d+)?$/.test(inner)) {
      throw new FeelScalaDataError(file, `${where}.$number "${inner}" is not a plain decimal`);
    }
    return;
  }
  if (tag === '$context') {
    if (!Array.isArray(inner)) throw new FeelScalaDataError(file, `${where}.$context is not a list of entries`);
    inner.forEach((entry, k) => {
      if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') {
        throw new FeelScalaDataError(file, `${where}.$context[${k}] is not a [key, value] pair`);
      }
      checkValue(entry[1], `${where}.$context[${k}][1]`, file);
    });
    return;
  }
  throw new FeelScalaDataError(file, `${where} has the unknown tag ${tag}`);
}

function checkSuppressed(value: Json | undefined, where: string, file: string): void {
  if (!Array.isArray(value) || value.length === 0) {
    throw new FeelScalaDataError(file, `${where}.suppressed is not a non-empty list`);
  }
  value.forEach((failure, k) => {
    if (!isObject(failure) || typeof failure.type !== 'string' || typeof failure.message !== 'string') {
      throw new FeelScalaDataError(file, `${where}.suppressed[${k}] is not {type, message}`);
    }
  });
}

function checkExpectation(value: Json | undefined, where: string, file: string): void {
  if (isObject(value)) {
    const keys = Object.keys(value).sort().join(',');
    if ('$failure' in value) {
      if (keys !== '$failure' || typeof value.$failure !== 'string') {
        throw new FeelScalaDataError(file, `${where} is not {"$failure": "<message part>"}`);
      }
      return;
    }
    if ('$null' in value || '$anyResult' in value) {
      const tag = '$null' in value ? '$null' : '$anyResult';
      if (keys !== `${tag},suppressed` || value[tag] !== true) {
        throw new FeelScalaDataError(file, `${where} is not {"${tag}": true, "suppressed": […]}`);
      }
      checkSuppressed(value.suppressed, where, file);
      return;
    }
    if ('$result' in value) {
      if (keys !== '$result,suppressed') throw new FeelScalaDataError(file, `${where} has extra keys: ${keys}`);
      checkValue(value.$result, `${where}.$result`, file);
      checkSuppressed(value.suppressed, where, file);
      return;
    }
  }
  checkValue(value, where, file);
}

const CASE_KEYS = new Set(['id', 'source', 'test', 'harness', 'kind', 'expression', 'input', 'variables', 'expect']);

function checkCase(raw: Json, where: string, file: string): FeelScalaCase {
  if (!isObject(raw)) throw new FeelScalaDataError(file, `${where} is not an object`);
  for (const key of Object.keys(raw)) {
    if (!CASE_KEYS.has(key)) throw new FeelScalaDataError(file, `${where} has the unknown field ${key}`);
  }
  for (const key of ['id', 'source', 'test', 'expression'] as const) {
    if (typeof raw[key] !== 'string') throw new FeelScalaDataError(file, `${where}.${key} is not a string`);
  }
  if (raw.harness !== 'api' && raw.harness !== 'interpreter') {
    throw new FeelScalaDataError(file, `${where}.harness is neither "api" nor "interpreter"`);
  }
  if (raw.kind !== 'expression' && raw.kind !== 'unaryTests') {
    throw new FeelScalaDataError(file, `${where}.kind is neither "expression" nor "unaryTests"`);
  }
  if ('input' in raw) {
    if (raw.kind !== 'unaryTests') throw new FeelScalaDataError(file, `${where} has an input but is not unaryTests`);
    checkValue(raw.input, `${where}.input`, file);
  }
  if ('variables' in raw) {
    const variables = raw.variables;
    if (!isObject(variables)) throw new FeelScalaDataError(file, `${where}.variables is not an object`);
    for (const [name, value] of Object.entries(variables)) checkValue(value, `${where}.variables.${name}`, file);
  }
  if (!('expect' in raw)) throw new FeelScalaDataError(file, `${where}.expect is missing`);
  checkExpectation(raw.expect, `${where}.expect`, file);
  return raw as unknown as FeelScalaCase;
}

/**
 * Reads and shape-checks one suite file.
 * @throws FeelScalaDataError naming the file and the place that is wrong
 */
export function loadFeelScalaSuite(path: string): FeelScalaSuite {
  let raw: Json;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Json;
  } catch (error) {
    throw new FeelScalaDataError(path, `is not JSON (${(error as Error).message})`);
  }
  if (!isObject(raw) || typeof raw.suite !== 'string' || typeof raw.source !== 'string' || !Array.isArray(raw.cases)) {
    throw new FeelScalaDataError(path, 'is not {suite, source, cases}');
  }
  const cases = raw.cases.map((c, k) => checkCase(c, `cases[${k}]`, path));
  return { suite: raw.suite, source: raw.source, cases };
}

/**
 * Reads every suite file of a folder (default: this one), in file-name order.
 * @throws FeelScalaDataError on the first file that is not valid, or when two cases share an id
 */
export function loadFeelScalaSuites(dir: string = feelScalaDataDir): FeelScalaSuite[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort();
  const suites = files.map((name) => loadFeelScalaSuite(join(dir, name)));
  const ids = new Set<string>();
  for (const suite of suites) {
    for (const c of suite.cases) {
      if (ids.has(c.id)) throw new FeelScalaDataError(join(dir, `${suite.suite}.json`), `the id ${c.id} repeats`);
      ids.add(c.id);
    }
  }
  return suites;
}
