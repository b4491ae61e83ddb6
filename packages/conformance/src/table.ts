/**
 * Renders `CONFORMANCE.md` from the case table. Pure (no vitest, no file system): the generator script
 * writes what this returns, and a test compares the file with it, so the document cannot drift.
 */
import {
  CONFORMANCE_CASES,
  type ConformanceCase,
  caseTableProblems,
  REFERENCE_CASE_COUNT,
  REFERENCE_INVENTORY,
  type ReferenceGroup,
  referencePosition,
  type SpecFile,
} from './cases.js';
import type { Capability, RepositoryCapabilities } from './types.js';

/**
 * Whether a backend has a capability: yes, no, or only under a condition (the string says which; on the
 * other configurations the case is reported skipped).
 */
export type BackendSupport = boolean | string;

/** The backends that run the suite, and what each declares. */
export const CONFORMANCE_BACKENDS = {
  memory: {
    package: '@thresher/checkpoint',
    capabilities: {
      concurrentConnections: false,
      persistence: false,
      alterStoredBytes: false,
      upgradeSchema: false,
      deploymentsSeen: true,
    },
  },
  sqlite: {
    package: '@thresher/store-sqlite',
    capabilities: {
      concurrentConnections: true,
      persistence: true,
      alterStoredBytes: true,
      upgradeSchema: true,
      deploymentsSeen: true,
    },
  },
  postgres: {
    package: '@thresher/store-postgres',
    capabilities: {
      concurrentConnections: 'against a server (THRESHER_PG_URL); PGlite has one connection',
      persistence: true,
      alterStoredBytes: true,
      upgradeSchema: true,
      deploymentsSeen: true,
    },
  },
} as const satisfies Record<string, { package: string; capabilities: Record<Capability, BackendSupport> }>;

export type BackendName = keyof typeof CONFORMANCE_BACKENDS;

/**
 * The capabilities a backend's initializer declares, from {@link CONFORMANCE_BACKENDS}; a conditional one
 * must be settled by `settled` (e.g. whether a server is configured).
 */
export function declaredCapabilities(
  backend: BackendName,
  settled: Partial<RepositoryCapabilities> = {},
): RepositoryCapabilities {
  const declared: Record<Capability, BackendSupport> = CONFORMANCE_BACKENDS[backend].capabilities;
  const resolve = (capability: Capability): boolean => {
    const support = declared[capability];
    if (typeof support === 'boolean') return support;
    const value = settled[capability];
    if (value === undefined) {
      throw new Error(`${backend} has capability ${capability} only ${support}: say whether it has it here`);
    }
    return value;
  };
  return {
    concurrentConnections: resolve('concurrentConnections'),
    persistence: resolve('persistence'),
    alterStoredBytes: resolve('alterStoredBytes'),
    upgradeSchema: resolve('upgradeSchema'),
    deploymentsSeen: resolve('deploymentsSeen'),
  };
}

/** The backends that run a case: all whose capabilities cover what it requires, a conditional one marked. */
function backendsOf(entry: ConformanceCase): string {
  const names: string[] = [];
  for (const [name, { capabilities }] of Object.entries(CONFORMANCE_BACKENDS)) {
    const support = (entry.requires ?? []).map(
      (capability) => (capabilities as Record<Capability, BackendSupport>)[capability],
    );
    if (support.some((value) => value === false)) continue;
    names.push(support.some((value) => typeof value === 'string') ? `${name} (server only)` : name);
  }
  return names.join(', ');
}

export { caseTableProblems };

const code = (text: string) => `\`${text}\``;

/** Where the test is: the spec file and the case id its title starts with. */
function coveredBy(entry: ConformanceCase): string {
  return `${code(entry.spec)} ${entry.id}`;
}

/** A Markdown table with every column padded to its widest cell, as the repository's formatter writes it. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

const GROUP_NOTES: Record<ReferenceGroup, string> = {
  GET_TUPLE: 'A tuple is a stored checkpoint: `get(instanceId, seq?)`.',
  PUT: '`put`: whole canonical documents, optimistic on `parentSeq`, never overwriting a row.',
  PUT_WRITES: '`putWrites`: journal entries (task id, index, value bytes) filed against one checkpoint.',
  LIST: '`list(instanceId, { before, limit })`: an instance history, oldest first.',
  DELETE_THREAD: 'A thread is an instance: `delete(instanceId)`.',
  COPY_THREAD: '`copy(sourceId, targetId)`: the whole history and index entry, bytes verbatim.',
  DELETE_FOR_RUNS:
    'A run is one instance (this contract has no run id inside an instance), so deleting a run is `delete`, one call per run.',
  DELTA_CHANNEL_HISTORY:
    'Checkpoints are whole documents, so nothing walks ancestors to rebuild a state: the history is `list`, the seed is the nearest stored document, and writes stay with the checkpoint they were filed against.',
  PRUNE: '`prune(instanceId, { keepLast })`, one instance per call; the delete-all strategy is `delete`.',
};

const SPEC_NOTES: Partial<Record<SpecFile, string>> = {
  'put.ts': '`put`: the stale writer, racing writers, large and unicode documents.',
  'put-writes.ts': '`putWrites`, and a crash between `put` and `putWrites`.',
  'rewrite.ts': '`rewrite`: schema migrations in place.',
  'get.ts': '`get`, and a row whose bytes were altered refused on load.',
  'list.ts': '`list`.',
  'delete.ts': '`delete`.',
  'copy.ts': '`copy`.',
  'prune.ts': '`prune`.',
  'instances.ts': '`instances`: discovery and paging, 10,000 instances included.',
  'leases.ts': '`claim`, `renew`, `release`: leases and fencing tokens.',
  'put-leases.ts':
    '`put` with `claim` and `release`: a lease taken or let go of in the write that stores the checkpoint.',
  'fencing.ts': 'Fenced writes: `put`, `putWrites` and `rewrite` under a lease, and after it moved.',
  'due-timers.ts': '`dueTimers`.',
  'subscriptions.ts': '`subscriptions`.',
  'messages.ts':
    '`putMessage`, `takeMessage`, `deleteMessage`, `expireMessages`: messages buffered before their subscription.',
  'jobs.ts':
    '`offerJob`, `withdrawJob`, `activateJobs`, `relockJob`, `jobLock`: jobs queued for workers outside the engine.',
  'search-rows.ts': '`putRows`, `projectionPosition`, `searchRows`: what projections of the event log keep searchable.',
  'deployments.ts': '`putDeployment`, `getDeployment`, `deployments`.',
  'close.ts': '`close`.',
  'read-order.ts':
    '`list` and `instances` in either order (`order`), with `after` and `before` as exclusive bounds: keyset paging both ways.',
  'trees.ts': '`InstanceSummary#rootId` and `instances({ rootId })`: a whole call tree in one query.',
  'schema-fence.ts':
    'Writes of a process running when a newer build migrated the store are refused (`StoreUpgradedError`).',
  'atomicity.ts': 'Every call is all or nothing: a refusal, wherever it is found, leaves the store as it was.',
  'journal-rules.ts':
    '`putWrites` files against the latest checkpoint only, and a repeated (taskId, index) must be the same bytes.',
  'text-rules.ts': 'U+0000 and lone surrogates are refused in every text field, and found nowhere, on every backend.',
  'limits.ts':
    '`MAX_TEXT_BYTES` (512 UTF-8 bytes) for text fields, `MAX_DOCUMENT_BYTES` (16 MiB) for documents, values and XML.',
  'parent-links.ts': '`parentId` and `callNodeId` come together, and name a stored parent when the link is made.',
};

/** The whole of `CONFORMANCE.md` for the given cases (by default the suite's table). */
export function renderConformanceTable(cases: readonly ConformanceCase[] = CONFORMANCE_CASES): string {
  const reference = cases.filter((entry) => entry.reference !== null);
  const own = cases.filter((entry) => entry.reference === null);
  const out: string[] = [
    '# Repository conformance',
    '',
    '<!-- Generated from packages/conformance/src/cases.ts by `pnpm conformance:table`; do not edit. A test fails when this file and the case table differ. -->',
    '',
    `The conformance suite (\`runRepositoryContract\` from \`@thresher/conformance\`) has ${cases.length} cases: the ${reference.length} cases of the reference checkpoint-saver inventory that seed 002 pins (${REFERENCE_CASE_COUNT - 1} reference cases plus \`put_replaces_an_existing_id\`), each mapped to this contract's equivalent behaviour, and ${own.length} cases of Thresher's own. Every case is one test; its title starts with the case id. Specs live in \`packages/conformance/src/\`.`,
    '',
    '## Backends',
    '',
    'A case that needs a capability a backend lacks is reported skipped with the capability named; the Backends column lists where a case runs.',
    '',
    ...table(
      ['Backend', 'Package', 'concurrentConnections', 'persistence', 'alterStoredBytes', 'upgradeSchema'],
      Object.entries(CONFORMANCE_BACKENDS).map(([name, backend]) => {
        const show = (support: BackendSupport) => (support === true ? 'yes' : support === false ? 'no' : support);
        const { concurrentConnections, persistence, alterStoredBytes, upgradeSchema } = backend.capabilities as Record<
          Capability,
          BackendSupport
        >;
        return [
          name,
          code(backend.package),
          show(concurrentConnections),
          show(persistence),
          show(alterStoredBytes),
          show(upgradeSchema),
        ];
      }),
    ),
    '',
    `## Reference inventory (${reference.length} cases)`,
    '',
    'Case names and groups are the reference inventory\'s; "What it checks" is the behaviour of this contract that realises the case, followed by how the reference concept maps onto it when the two differ.',
  ];
  for (const group of Object.keys(REFERENCE_INVENTORY) as ReferenceGroup[]) {
    const rows = reference.filter((entry) => referencePosition(entry.reference!).group === group);
    out.push('', `### ${group} (${rows.length} cases)`, '', GROUP_NOTES[group], '');
    out.push(
      ...table(
        ['Case', 'What it checks', 'Covered by', 'Backends'],
        rows.map((entry) => [
          `${code(entry.reference!)} (#${referencePosition(entry.reference!).number})`,
          entry.mapping === undefined ? entry.checks : `${entry.checks}. Mapping: ${entry.mapping}`,
          coveredBy(entry),
          backendsOf(entry),
        ]),
      ),
    );
  }
  out.push('', `## Thresher's own cases (${own.length} cases)`, '');
  out.push('What a durable engine needs beyond the reference inventory, one group per spec file.');
  const specs = [...new Set(own.map((entry) => entry.spec))];
  for (const spec of specs) {
    const rows = own.filter((entry) => entry.spec === spec);
    out.push('', `### ${spec} (${rows.length} cases)`, '');
    const note = SPEC_NOTES[spec];
    if (note !== undefined) out.push(note, '');
    out.push(
      ...table(
        ['Case', 'What it checks', 'Covered by', 'Backends'],
        rows.map((entry) => [entry.id, entry.checks, coveredBy(entry), backendsOf(entry)]),
      ),
    );
  }
  out.push('');
  return out.join('\n');
}
