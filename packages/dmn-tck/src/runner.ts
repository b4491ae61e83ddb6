/**
 * Running TCK folders: each folder's models parsed (imported ones first), each test case evaluated, each
 * result node compared. A test case passes when all its result nodes do; a model Thresher refuses fails its
 * test cases with the reason.
 *
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DmnDefinitions, DmnModelError, evaluateDecision, evaluateInvocable, parseDmn } from '@thresher/dmn';
import { FeelContext, type FeelValue } from '@thresher/feel';
import { sameValue, show } from './compare.js';
import { readTestFile, type TestCase } from './test-file.js';

export type Status = 'SUCCESS' | 'ERROR' | 'IGNORED';

export interface CaseResult {
  /** `compliance-level-2/0001-input-data-string` */
  folder: string;
  /** The test file's name without `.xml`. */
  file: string;
  id: string;
  status: Status;
  message: string;
  /** Result nodes passed and in all. */
  nodesPassed: number;
  nodes: number;
}

/** The `NNNN-*` folders of a compliance level, in order. */
export function folders(testCases: string, level: string): string[] {
  return readdirSync(join(testCases, level), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^\d{4}-/.test(entry.name))
    .map((entry) => `${level}/${entry.name}`)
    .sort();
}

/** Parses the folder's models, imported ones first; a model that cannot be parsed is kept as its error. */
function parseModels(dir: string): Map<string, DmnDefinitions | Error> {
  const files = readdirSync(dir).filter((name) => name.endsWith('.dmn'));
  const xml = new Map(files.map((file) => [file, readFileSync(join(dir, file), 'utf8')]));
  const parsed = new Map<string, DmnDefinitions | Error>();
  const namespaces = new Map<string, string>();
  for (const [file, text] of xml) {
    const namespace = /<(?:\w+:)?definitions[^>]*\snamespace="([^"]+)"/.exec(text)?.[1];
    if (namespace) namespaces.set(namespace, file);
  }
  const parse = (file: string, seen: Set<string>): DmnDefinitions | Error => {
    const done = parsed.get(file);
    if (done) return done;
    const text = xml.get(file)!;
    const imports: DmnDefinitions[] = [];
    for (const match of text.matchAll(/<(?:\w+:)?import\b[^>]*\snamespace="([^"]+)"/g)) {
      const importedFile = namespaces.get(match[1]!);
      if (!importedFile || seen.has(importedFile)) continue;
      const imported = parse(importedFile, new Set([...seen, file]));
      if (!(imported instanceof Error)) imports.push(imported);
    }
    let result: DmnDefinitions | Error;
    try {
      result = parseDmn(text, { imports, lenient: true });
    } catch (error) {
      result = error instanceof DmnModelError ? error : new Error(String(error));
    }
    parsed.set(file, result);
    return result;
  };
  for (const file of files) parse(file, new Set());
  return parsed;
}

/** Runs one folder's test files. */
export function runFolder(testCases: string, folder: string): CaseResult[] {
  const dir = join(testCases, folder);
  const models = parseModels(dir);
  const results: CaseResult[] = [];
  const testFiles = readdirSync(dir)
    .filter((name) => /-test-\d+\.xml$/.test(name))
    .sort();
  for (const testFileName of testFiles) {
    const file = testFileName.replace(/\.xml$/, '');
    const testFile = readTestFile(readFileSync(join(dir, testFileName), 'utf8'));
    const model = models.get(testFile.modelName) ?? new Error(`no model ${testFile.modelName} in ${folder}`);
    for (const testCase of testFile.cases) {
      results.push({ folder, file, id: testCase.id, ...runCase(model, testCase) });
    }
  }
  return results;
}

function runCase(
  model: DmnDefinitions | Error,
  testCase: TestCase,
): Pick<CaseResult, 'status' | 'message' | 'nodesPassed' | 'nodes'> {
  const nodes = testCase.results.length;
  if (model instanceof Error) {
    return { status: 'ERROR', message: `model refused: ${model.message}`, nodesPassed: 0, nodes };
  }
  const variables: Record<string, FeelValue> = {};
  for (const input of testCase.inputs) variables[input.name] = input.value;
  const failures: string[] = [];
  let nodesPassed = 0;
  for (const result of testCase.results) {
    const outcome = evaluateNode(model, testCase, result.name, variables);
    const expected = result.expected;
    let passed: boolean;
    if (result.errorResult) passed = !outcome.ok || outcome.value === null;
    else if (expected === undefined) passed = true;
    else if (!outcome.ok) passed = expected === null;
    else passed = sameValue(outcome.value, expected);
    if (passed) nodesPassed++;
    else {
      const actual = outcome.ok ? show(outcome.value) : `failed: ${outcome.message}`;
      failures.push(`${result.name}: expected ${show(expected)}, got ${actual}`);
    }
  }
  return {
    status: failures.length === 0 ? 'SUCCESS' : 'ERROR',
    message: failures.join('; '),
    nodesPassed,
    nodes,
  };
}

function evaluateNode(
  model: DmnDefinitions,
  testCase: TestCase,
  name: string,
  variables: Record<string, FeelValue>,
): { ok: true; value: FeelValue } | { ok: false; message: string } {
  let outcome: ReturnType<typeof evaluateDecision>;
  if (testCase.type === 'decision') {
    const decision = [...model.decisions.values()].find(
      (candidate) => candidate.name === name || candidate.id === name,
    );
    if (!decision) return { ok: false, message: `no decision named "${name}"` };
    outcome = evaluateDecision(model, decision.id, variables);
  } else {
    const invocableName = testCase.invocableName ?? name;
    const invocable = [...model.decisionServices.values(), ...model.knowledgeModels.values()].find(
      (candidate) => candidate.name === invocableName || candidate.id === invocableName,
    );
    if (!invocable) return { ok: false, message: `no ${testCase.type} named "${invocableName}"` };
    outcome = evaluateInvocable(model, invocable.id, variables);
  }
  if (!outcome.ok) return { ok: false, message: outcome.failure.message };
  // A service with several output decisions gives a context of them; a result node names one of them.
  const value = outcome.value;
  if (testCase.type === 'decisionService' && value instanceof FeelContext && name !== testCase.invocableName) {
    const entry = value.get(name);
    if (entry !== undefined) return { ok: true, value: entry };
  }
  return { ok: true, value };
}
