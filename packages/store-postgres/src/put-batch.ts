/**
 * The puts of a group-commit batch in one statement (`putCheckpoints`, put-batch-statement.ts), inside the
 * batch's fenced transaction; what the statement leaves undecided then runs the full rules there, in the
 * batch's order. The group commit (`statementRuns`) hands over at most one put per instance.
 */
import type { Lease, PutCheckpoint } from '@thresher/checkpoint';
import { fenceComparable, type OneStatementPut, putCheckpoint, storedPut } from './checkpoints.js';
import type { PgQueryable } from './driver.js';
import type { Joinable } from './group-commit.js';
import { leaseWithPut } from './leases.js';
import { putBatchParams } from './put-batch-statement.js';
import { carriesDeploymentsSeen, type Int8, type PutFunctionRow } from './rows.js';
import type { Statements } from './statements.js';

/** A put as the group commit joins it with its neighbours: its instance and document size, and the put. */
export interface JoinedPut extends Joinable {
  readonly checkpoint: PutCheckpoint;
}

export function joinedPut(checkpoint: PutCheckpoint): JoinedPut {
  return {
    key: checkpoint.instanceId,
    bytes: checkpoint.bytes.byteLength + (checkpoint.log?.byteLength ?? 0),
    checkpoint,
  };
}

/** `put` by the full rules (`putCheckpoint`, then its claim or release), in the caller's fenced transaction. */
export async function putFully(
  client: PgQueryable,
  sql: Statements,
  checkpoint: PutCheckpoint,
): Promise<Lease | undefined> {
  await putCheckpoint(client, sql, checkpoint);
  return leaseWithPut(client, sql, checkpoint);
}

/**
 * Puts of different instances, in one round trip for the common ones, then the full rules for each put the
 * statement left undecided, in order. The full rules decide against what is stored by then, the statement's
 * other puts included: the order a client would see, as each of them wrote another instance.
 *
 * @throws whatever the full rules refuse a put with: the batch's transaction then rolls back
 */
export async function putsTogether(
  client: PgQueryable,
  sql: Statements,
  run: readonly JoinedPut[],
): Promise<(Lease | undefined)[]> {
  const checkpoints = run.map((joined) => joined.checkpoint);
  const outcomes = await putsInOneStatement(client, sql, checkpoints);
  const leases: (Lease | undefined)[] = [];
  for (const [index, outcome] of outcomes.entries()) {
    leases.push(outcome.stored ? outcome.lease : await putFully(client, sql, checkpoints[index]!));
  }
  return leases;
}

/**
 * What the one statement did with each put, in order. Not sent: a fence the server cannot compare, and a first
 * put chosen among fewer deployments than the batch's transaction counts (the full rules refuse it). The
 * others are sent without their count, checked here once for the batch instead of once a put in the server.
 */
async function putsInOneStatement(
  db: PgQueryable,
  sql: Statements,
  checkpoints: readonly PutCheckpoint[],
): Promise<OneStatementPut[]> {
  const stored = checkpoints.some(carriesDeploymentsSeen)
    ? Number((await db.query<{ stored: Int8 }>(sql.countDeployments, [])).rows[0]!.stored)
    : 0;
  const sendable = (checkpoint: PutCheckpoint) =>
    fenceComparable(checkpoint) && (checkpoint.deploymentsSeen === undefined || checkpoint.deploymentsSeen >= stored);
  const sent = checkpoints.filter(sendable);
  if (sent.length === 0) return checkpoints.map(() => ({ stored: false }));
  const { rows } = await db.query<StoredRow>(sql.putCheckpoints, putBatchParams(sent));
  // One row per put stored, by its instance (one put per instance); a put with no row is left undecided.
  const answers = new Map(rows.map((row) => [row.instance_id, row]));
  return checkpoints.map((checkpoint) => {
    const row = sendable(checkpoint) ? answers.get(checkpoint.instanceId) : undefined;
    return row === undefined ? { stored: false } : storedPut(row, checkpoint);
  });
}

/** What the batch statement answers for a put it stored: the lease its claim took, if any. */
type StoredRow = Pick<PutFunctionRow, 'claimed_token' | 'claimed_expires_at'> & { instance_id: string };
