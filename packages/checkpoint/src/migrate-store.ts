import { CURRENT_SCHEMA, openCheckpoint, sealCheckpoint } from './document.js';
import type { Repository } from './repository.js';

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

/**
 * Rewrite every stored checkpoint document older than `CURRENT_SCHEMA` to the current schema, in place:
 * each is opened (which verifies its digest and runs the migration chain), sealed again and swapped in
 * with `Repository#rewrite` against its old digest. A document that fails is reported and left alone; the
 * others go on. The engine also migrates lazily on load, so this is for keeping a store uniform.
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
      for (const stored of await repository.list(instanceId)) {
        report.checkpoints++;
        if (stored.schema === CURRENT_SCHEMA) {
          report.current++;
          continue;
        }
        report.bySchema[stored.schema] = (report.bySchema[stored.schema] ?? 0) + 1;
        try {
          const document = openCheckpoint(stored.bytes, { instanceId, seq: stored.seq });
          const { digest: _, schema: __, ...unsealed } = document;
          const sealed = sealCheckpoint(unsealed);
          if (!report.dryRun) {
            await repository.rewrite({
              instanceId,
              seq: stored.seq,
              expectedDigest: stored.digest,
              schema: sealed.document.schema,
              digest: sealed.document.digest,
              bytes: sealed.bytes,
            });
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
      options.onProgress?.(report);
    }
    if (page.length < PAGE) return report;
    after = page[page.length - 1]!.instanceId;
  }
}
