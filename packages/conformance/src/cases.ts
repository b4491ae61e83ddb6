/**
 * The conformance suite's case table: every test of the suite is one row here, and takes its title from
 * it. `CONFORMANCE.md` is generated from this table (`pnpm conformance:table`), and a test fails when the
 * two disagree. Nothing here imports vitest, so the table renders outside a test run.
 */
import { READ_CASES } from './read-cases.js';
import { REFERENCE_CASES } from './reference-cases.js';
import { THRESHER_CASES } from './thresher-cases.js';
import type { Capability } from './types.js';
import { WRITE_RULE_CASES, type WriteRuleSpec } from './write-rule-cases.js';

/**
 * The reference checkpoint-saver conformance inventory as seed 002 pins it (commit e5e37b5d70db): 92 cases
 * plus `put_replaces_an_existing_id`, which the reference savers' `put` documents but its suite does not
 * name. Group order and case order are the seed's; a case's number is its 1-based position in its group.
 */
export const REFERENCE_INVENTORY = {
  GET_TUPLE: [
    'test_get_tuple_nonexistent_returns_none',
    'test_get_tuple_latest_when_no_checkpoint_id',
    'test_get_tuple_specific_checkpoint_id',
    'test_get_tuple_config_structure',
    'test_get_tuple_checkpoint_fields',
    'test_get_tuple_metadata',
    'test_get_tuple_parent_config',
    'test_get_tuple_pending_writes',
    'test_get_tuple_pending_writes_in_writes_sort_key_order',
    'test_get_tuple_respects_namespace',
    'test_get_tuple_nonexistent_checkpoint_id',
  ],
  PUT: [
    'test_put_returns_config',
    'test_put_roundtrip',
    'test_put_preserves_channel_values',
    'test_put_preserves_channel_versions',
    'test_put_preserves_versions_seen',
    'test_put_preserves_metadata',
    'test_put_root_namespace',
    'test_put_child_namespace',
    'test_put_default_namespace',
    'test_put_multiple_checkpoints_same_thread',
    'test_put_multiple_threads_isolated',
    'test_put_parent_config',
    'test_put_incremental_channel_update',
    'test_put_new_channel_added',
    'test_put_channel_removed',
    'test_put_preserves_run_id',
    'test_put_preserves_versions_seen_values',
    'put_replaces_an_existing_id',
  ],
  PUT_WRITES: [
    'test_put_writes_basic',
    'test_put_writes_multiple_writes_same_task',
    'test_put_writes_multiple_tasks',
    'test_put_writes_preserves_task_id',
    'test_put_writes_preserves_channel_and_value',
    'test_put_writes_task_path',
    'test_put_writes_idempotent',
    'test_put_writes_special_channels',
    'test_put_writes_across_namespaces',
    'test_put_writes_cleared_on_next_checkpoint',
  ],
  LIST: [
    'test_list_all',
    'test_list_by_thread',
    'test_list_by_namespace',
    'test_list_ordering',
    'test_list_metadata_filter_single_key',
    'test_list_metadata_filter_step',
    'test_list_before',
    'test_list_limit',
    'test_list_limit_plus_before',
    'test_list_combined_thread_and_filter',
    'test_list_empty_result',
    'test_list_includes_pending_writes',
    'test_list_multiple_namespaces',
    'test_list_metadata_filter_multiple_keys',
    'test_list_metadata_filter_no_match',
    'test_list_metadata_custom_keys',
  ],
  DELETE_THREAD: [
    'test_delete_thread_removes_checkpoints',
    'test_delete_thread_removes_writes',
    'test_delete_thread_removes_all_namespaces',
    'test_delete_thread_preserves_other_threads',
    'test_delete_thread_nonexistent_noop',
  ],
  COPY_THREAD: [
    'test_copy_thread_basic',
    'test_copy_thread_all_checkpoints',
    'test_copy_thread_preserves_metadata',
    'test_copy_thread_preserves_namespaces',
    'test_copy_thread_preserves_writes',
    'test_copy_thread_preserves_ordering',
    'test_copy_thread_source_unchanged',
    'test_copy_thread_nonexistent_source',
  ],
  DELETE_FOR_RUNS: [
    'test_delete_for_runs_single',
    'test_delete_for_runs_multiple',
    'test_delete_for_runs_preserves_other_runs',
    'test_delete_for_runs_removes_writes',
    'test_delete_for_runs_empty_list_noop',
    'test_delete_for_runs_nonexistent_noop',
    'test_delete_for_runs_across_namespaces',
  ],
  DELTA_CHANNEL_HISTORY: [
    'test_history_returns_writes_oldest_first',
    'test_history_seed_is_nearest_snapshot',
    'test_history_excludes_target_pending_writes',
    'test_history_multi_channel',
    'test_history_empty_channels_returns_empty',
    'test_history_walk_to_root_no_seed',
    'test_history_migration_plain_value_as_seed',
    'test_history_seed_ancestor_own_writes_are_replayed',
    'test_history_orders_parallel_writes_by_task_path',
    'test_history_orders_pathless_writes_first',
  ],
  PRUNE: [
    'test_prune_keep_latest_single_thread',
    'test_prune_keep_latest_multiple_threads',
    'test_prune_keep_latest_across_namespaces',
    'test_prune_keep_latest_preserves_writes',
    'test_prune_delete_all',
    'test_prune_preserves_other_threads',
    'test_prune_empty_list_noop',
    'test_prune_nonexistent_noop',
  ],
} as const;

/** How many reference cases the seed counts: 92 of the inventory, plus `put_replaces_an_existing_id`. */
export const REFERENCE_CASE_COUNT = 93;

export type ReferenceGroup = keyof typeof REFERENCE_INVENTORY;
/** The name of one reference case; names are unique across groups. */
export type ReferenceCaseName = (typeof REFERENCE_INVENTORY)[ReferenceGroup][number];

/** The suite's spec files (under `src/`): one per contract method, one per reference group. */
export type SpecFile =
  | 'history.ts'
  | 'put.ts'
  | 'put-writes.ts'
  | 'rewrite.ts'
  | 'get.ts'
  | 'list.ts'
  | 'delete.ts'
  | 'copy.ts'
  | 'prune.ts'
  | 'retention.ts'
  | 'instances.ts'
  | 'leases.ts'
  | 'put-leases.ts'
  | 'fencing.ts'
  | 'due-timers.ts'
  | 'subscriptions.ts'
  | 'messages.ts'
  | 'deployments.ts'
  | 'close.ts'
  | 'read-order.ts'
  | 'trees.ts'
  | 'schema-fence.ts'
  | WriteRuleSpec
  | 'reference/get-tuple.ts'
  | 'reference/put.ts'
  | 'reference/put-writes.ts'
  | 'reference/list.ts'
  | 'reference/delete-thread.ts'
  | 'reference/copy-thread.ts'
  | 'reference/delete-for-runs.ts'
  | 'reference/delta-channel-history.ts'
  | 'reference/prune.ts';

/** One row of the table: one test of the suite. */
export interface ConformanceCase {
  /** Stable id, also the start of the test's title: `GET_TUPLE-01` for reference cases, `TH-PUT-01` for ours. */
  id: string;
  /** The reference case this test realises; null for a case of Thresher's own. */
  reference: ReferenceCaseName | null;
  /** What the test asserts, as a sentence; the rest of its title. Printable ASCII only. */
  checks: string;
  /** For a reference case: how the reference's concept maps onto this contract, when it is not the same. */
  mapping?: string;
  /** The spec file that registers the test. */
  spec: SpecFile;
  /** Capabilities a store must declare for the test to run; otherwise it is reported skipped, naming them. */
  requires?: Capability[];
}

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
