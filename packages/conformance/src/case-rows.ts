/**
 * What a row of the case table is, and how a spec file's own rows are written: the types every table shares,
 * below the tables and the table that gathers them (`cases.ts`).
 */
import type { ReferenceCaseName } from './inventory.js';
import type { Capability } from './types.js';

/** The spec files of the write rules (`write-rules.ts` registers them all). */
export type WriteRuleSpec = 'atomicity.ts' | 'journal-rules.ts' | 'text-rules.ts' | 'limits.ts' | 'parent-links.ts';

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
  | 'jobs.ts'
  | 'search-rows.ts'
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

/** A row of one of Thresher's own specs: its id, what it checks, and the capabilities it needs. */
export type OwnRow = [id: string, checks: string, requires?: Capability[]];

/** The rows of one spec file of Thresher's own cases (no reference case), in their order. */
export function ownCases(spec: SpecFile, entries: OwnRow[]): ConformanceCase[] {
  return entries.map(([id, checks, requires]) =>
    requires === undefined ? { id, reference: null, checks, spec } : { id, reference: null, checks, spec, requires },
  );
}
