/**
 * @module @thresher/checkpoint/store-kit
 *
 * For implementers of the `Repository` contract, not for its callers: the rules every store applies, so that
 * every backend refuses, decides and reads alike to the letter, and what the SQL stores share. Each store
 * checks a call's arguments before it reads anything (input-rules.ts), decides a write against what it holds
 * inside its transaction (put-rules.ts), checks and pages a read the same way (read-rules.ts), and a SQL store
 * maps its rows to contract values and refuses a newer schema with the same words (sql.ts). The in-memory
 * repository of the main entry applies the same rules.
 *
 * The SQL stores share their front too: `CheckedStore` checks each call and answers what no row can change.
 *
 * The contract itself, its limits and its text rule (`MAX_TEXT_BYTES`, `MAX_DOCUMENT_BYTES`, `checkText`,
 * `isStorableText`) are the main entry's, `@thresher/checkpoint`.
 */

export {
  checkBytes,
  checkClaimArguments,
  checkDeploymentArguments,
  checkExpireArguments,
  checkInteger,
  checkMessage,
  checkObject,
  checkPutArguments,
  checkReaderArguments,
  checkRewriteArguments,
  checkWritesArguments,
  distinctStorableIds,
} from '../input-rules.js';
export type { QueuedJob } from '../job-rules.js';
export { checkJobActivation, checkJobOffer, checkRelock, isActivatable, lockOf } from '../job-rules.js';
export type { HeldLease } from '../put-rules.js';
export {
  checkDeploymentsSeen,
  checkFence,
  checkKeepLast,
  checkLeaseArguments,
  checkMessageClock,
  checkParentStored,
  checkRenew,
  checkWritesTarget,
  compareCodePoints,
  decideCopy,
  decidePut,
  decideRewrite,
  equalBytes,
  isClaimable,
  messageNames,
  parentToCheck,
  pickMessage,
  planWrites,
} from '../put-rules.js';
export type { HistoryRange, InstancePage, LogRead } from '../read-rules.js';
export {
  checkPageSize,
  checkReadOrder,
  historyRange,
  instancePage,
  integerPosition,
  logRead,
  rootIdOf,
  storableFilters,
  storableIds,
} from '../read-rules.js';
export { checkRowBatch, checkRowSearch } from '../search-rows.js';
export { CheckedStore } from './checked-store.js';
export type { RowDialect, RowQuery } from './row-sql.js';
export { rowQuery } from './row-sql.js';
export type {
  CheckpointRow,
  CheckpointWithWriteRow,
  DeploymentRow,
  DueTimerRow,
  InstanceRow,
  Int8Column,
  JobLockRow,
  LogRow,
  MessageRow,
  SchemaMigration,
  WriteRow,
} from './sql.js';
export {
  assertKnownStoreSchema,
  assertStoreNotUpgraded,
  CHECKPOINT_COLUMNS,
  checkpointColumnsOf,
  newDeployment,
  shownOption,
  toBufferedMessage,
  toBytes,
  toDeployment,
  toDueTimer,
  toInstanceSummary,
  toJobLock,
  toLogEntry,
  toStoredCheckpoint,
  toStoredCheckpointFromJoined,
  toStoredCheckpoints,
  toStoredCheckpointsFromJoined,
} from './sql.js';
