/**
 * The conformance suite's case table: every test of the suite is one row here, and takes its title from
 * it. `CONFORMANCE.md` is generated from this table (`pnpm conformance:table`), and a test fails when the
 * two disagree. Nothing here imports vitest, so the table renders outside a test run.
 */
import type { ConformanceCase } from './case-rows.js';
import { REFERENCE_CASE_COUNT, REFERENCE_INVENTORY, type ReferenceCaseName, type ReferenceGroup } from './inventory.js';
import { READ_CASES } from './read-cases.js';
import { REFERENCE_CASES } from './reference-cases.js';
import { THRESHER_CASES } from './thresher-cases.js';
import { WRITE_RULE_CASES } from './write-rule-cases.js';

export type { ConformanceCase, SpecFile, WriteRuleSpec } from './case-rows.js';
export type { ReferenceCaseName, ReferenceGroup } from './inventory.js';
export { REFERENCE_CASE_COUNT, REFERENCE_INVENTORY };

/** Every case, reference cases first, in the order the table lists them. */
export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  ...REFERENCE_CASES,
  ...THRESHER_CASES,
  ...READ_CASES,
  ...WRITE_RULE_CASES,
];

const byId = new Map(CONFORMANCE_CASES.map((entry) => [entry.id, entry]));

/** The row of a case id; throws for an id the table does not have, so a test cannot invent one. */
export function conformanceCase(id: string): ConformanceCase {
  const entry = byId.get(id);
  if (entry === undefined) throw new Error(`conformance case ${id} is not in the case table (cases.ts)`);
  return entry;
}

/** A reference case's group and 1-based number in it, e.g. `{ group: 'PUT', number: 3 }`. */
export function referencePosition(name: ReferenceCaseName): { group: ReferenceGroup; number: number } {
  for (const [group, names] of Object.entries(REFERENCE_INVENTORY) as [ReferenceGroup, readonly string[]][]) {
    const index = names.indexOf(name);
    if (index >= 0) return { group, number: index + 1 };
  }
  throw new Error(`${name} is not a reference case`);
}

/** The title of a case's test: its id and what it checks, with the reference case it realises. */
export function caseTitle(id: string): string {
  const entry = conformanceCase(id);
  if (entry.reference === null) return `${entry.id} ${entry.checks}`;
  const { group, number } = referencePosition(entry.reference);
  return `${entry.id} ${entry.checks} [${group}#${number} ${entry.reference}]`;
}

/**
 * Check the table's own invariants: unique, well-formed ids; printable ASCII text; every reference case
 * realised by exactly one row, and the reference count the seed gives. Returns the problems found.
 */
export function caseTableProblems(cases: readonly ConformanceCase[] = CONFORMANCE_CASES): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const realised = new Map<string, string[]>();
  for (const entry of cases) {
    if (seen.has(entry.id)) problems.push(`case id ${entry.id} is used twice`);
    seen.add(entry.id);
    if (!/^(TH-[A-Z]+|[A-Z_]+)-\d{2}$/.test(entry.id)) problems.push(`case id ${entry.id} is not of the form GROUP-nn`);
    for (const text of [entry.checks, entry.mapping ?? '']) {
      if (!/^[\x20-\x7e]*$/.test(text)) problems.push(`case ${entry.id} has text outside printable ASCII: ${text}`);
      if (text.includes('|')) problems.push(`case ${entry.id} has a "|" in its text, which would split a table cell`);
    }
    if (entry.reference !== null) {
      const { group, number } = referencePosition(entry.reference);
      const expected = `${group}-${String(number).padStart(2, '0')}`;
      if (entry.id !== expected)
        problems.push(`case ${entry.id} realises ${entry.reference}, so its id is ${expected}`);
      if (!entry.spec.startsWith('reference/')) problems.push(`reference case ${entry.id} is not in a reference/ spec`);
      realised.set(entry.reference, [...(realised.get(entry.reference) ?? []), entry.id]);
    } else if (!entry.id.startsWith('TH-')) {
      problems.push(`case ${entry.id} realises no reference case, so its id starts with TH-`);
    }
  }
  const names = Object.values(REFERENCE_INVENTORY).flat();
  if (names.length !== REFERENCE_CASE_COUNT) {
    problems.push(`the reference inventory has ${names.length} cases, not ${REFERENCE_CASE_COUNT}`);
  }
  for (const name of names) {
    const ids = realised.get(name) ?? [];
    if (ids.length !== 1)
      problems.push(`reference case ${name} is realised by ${ids.length} cases (${ids.join(', ')})`);
  }
  return problems;
}
