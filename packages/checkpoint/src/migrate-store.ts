import type { CheckpointDocument } from './body-records.js';
import { CURRENT_SCHEMA, openCheckpoint, sealCheckpoint } from './document.js';
import type { Repository } from './repository.js';
import { openStepLog, sealStepLog } from './step-log.js';

export interface MigrationFailure {
  instanceId: string;
  seq: number;
  error: Error;
}

/** What `migrateRepository` found and did. */
export interface MigrationReport {
  dryRun: boolean;
  instances: number;
  checkpoints: number;
  /** Documents rewritten to the current schema (or that would be, in a dry run). */
  migrated: number;
  /** Documents already at the current schema. */
  current: number;
  /** Documents left as they were: corrupt, from a future schema, or lost to a concurrent writer. */
  failed: MigrationFailure[];
  /** How many documents of each older schema were found. */
  bySchema: Record<number, number>;
}

const PAGE = 500;

/** The schema whose documents keep no past: what an older document carried moves to the log. */
const LOGGED_PAST = 14;

/** How much of an instance's past its log holds: the elements completed and decisions evaluated it lists. */
interface Logged {
  completed: number;
  decisions: number;
}

/**
 * Rewrite every stored checkpoint document older than `CURRENT_SCHEMA` to the current schema, in place:
 * each is opened (which verifies its digest and runs the migration chain), sealed again and swapped in
 * with `Repository#rewrite` against its old digest. A document that fails is reported and left alone; the
 * others go on. The engine also migrates lazily on load, so this is for keeping a store uniform.
 *
 * A document older than schema 14 kept the instance's past in its body: an instance whose latest checkpoint is
 * such a document (no step since the upgrade logged its past) gets its past moved into the log, a log entry
 * filed with each of its older checkpoints, oldest first: the elements and decisions that checkpoint added,
 * and the events of its step, so the event feed has them. A migration stopped half-way goes on where it
 * stopped (each checkpoint's document and entry are one write), and what the log already holds is not
 * logged again.
 */
export async function migrateRepository(
  repository: Repository,
  options: {
    dryRun?: boolean;
    /** Told the report so far after each instance (a long migration shows its progress by it). */
    onProgress?: (report: Readonly<MigrationReport>) => void;
  } = {},
): Promise<MigrationReport> {
  const report: MigrationReport = {
    dryRun: options.dryRun ?? false,
    instances: 0,
    checkpoints: 0,
    migrated: 0,
    current: 0,
    failed: [],
    bySchema: {},
  };
  let after: string | undefined;
  for (;;) {
    const page = await repository.instances({ limit: PAGE, ...(after === undefined ? {} : { after }) });
    for (const { instanceId } of page) {
      report.instances++;
      await migrateInstance(repository, instanceId, report);
      options.onProgress?.(report);
    }
    if (page.length < PAGE) return report;
    after = page[page.length - 1]!.instanceId;
  }
}

async function migrateInstance(repository: Repository, instanceId: string, report: MigrationReport): Promise<void> {
  const checkpoints = await repository.list(instanceId);
  const head = checkpoints.at(-1);
  // Only while no step since the upgrade wrote the past into the log.
  const logged = head !== undefined && head.schema < LOGGED_PAST ? await loggedPast(repository, instanceId) : undefined;
  for (const stored of checkpoints) {
    report.checkpoints++;
    if (stored.schema === CURRENT_SCHEMA) {
      report.current++;
      continue;
    }
    report.bySchema[stored.schema] = (report.bySchema[stored.schema] ?? 0) + 1;
    try {
      const document = openCheckpoint(stored.bytes, { instanceId, seq: stored.seq });
      const { digest: _, schema: __, ...unsealed } = document;
      const { past, ...body } = unsealed.body;
      const sealed = sealCheckpoint({ ...unsealed, body });
      const log = logged && pastEntry(document, logged);
      if (!report.dryRun) {
        await repository.rewrite({
          instanceId,
          seq: stored.seq,
          expectedDigest: stored.digest,
          schema: sealed.document.schema,
          digest: sealed.document.digest,
          bytes: sealed.bytes,
          ...(log === undefined ? {} : { log }),
        });
      }
      if (logged && past) {
        logged.completed = Math.max(logged.completed, past.history.length);
        logged.decisions = Math.max(logged.decisions, past.decisions?.length ?? 0);
      }
      report.migrated++;
    } catch (error) {
      report.failed.push({
        instanceId,
        seq: stored.seq,
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }
}

/** What an instance's log already holds of its past. */
async function loggedPast(repository: Repository, instanceId: string): Promise<Logged> {
  const logged: Logged = { completed: 0, decisions: 0 };
  for (const entry of await repository.history({ instanceId })) {
    const log = openStepLog(entry.bytes, { instanceId, seq: entry.seq });
    logged.completed += log.completed?.length ?? 0;
    logged.decisions += log.decisions?.length ?? 0;
  }
  return logged;
}

/** The log entry of an older document's step: what its past adds to what the log holds, and its events. */
function pastEntry(document: CheckpointDocument, logged: Logged): Uint8Array {
  const { instanceId, seq, definitionDigest, capturedAt, body } = document;
  const past = body.past;
  return sealStepLog({
    instanceId,
    seq,
    processId: body.instance.processId,
    definitionDigest,
    capturedAt,
    completed: past?.history.slice(logged.completed) ?? [],
    decisions: past?.decisions?.slice(logged.decisions) ?? [],
    events: past?.events ?? [],
  }).bytes;
}
