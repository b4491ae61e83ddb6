/**
 * What every store refuses before it looks at what it holds: text no backend keeps alike, values past the
 * limits the contract declares, numbers a backend would round or refuse, and half a parent link. Every
 * store, the memory one included, calls these first in each method, so a refusal is the same error on
 * every backend and nothing is written. The rules that need what is stored are in `put-rules.ts`.
 */
import { LimitExceededError, ParentLinkError, UnencodableValueError } from './errors.js';
import { checkLeaseArguments } from './put-rules.js';
import type {
  BufferedMessage,
  ClaimOptions,
  DeploymentInput,
  ExpireOptions,
  LogReader,
  PutCheckpoint,
  RewriteCheckpoint,
} from './repository-types.js';

/**
 * The most UTF-8 bytes of any text a store keeps: ids, digests, statuses, keys, names, owners and task ids
 * (deployment XML excepted). PostgreSQL's btree holds index entries of up to 2,704 bytes (8 kB pages); its
 * widest indexes (subscriptions by name, key and instance; messages by name, key, time and id) hold three
 * text fields, which fit incompressible text of up to 892 bytes each. 512 holds everywhere with room to spare.
 */
export const MAX_TEXT_BYTES = 512;

/**
 * The most bytes of a checkpoint document, a journal entry's value or a buffered message's variables, and
 * the most UTF-8 bytes of a deployment's XML: 16 MiB.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** Matches a UTF-16 surrogate that is not part of a pair: the `u` flag reads a valid pair as one code point. */
export const LONE_SURROGATE = /\p{Cs}/u;

/** The length of `text` in UTF-8 bytes (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      length += 1;
    } else if (unit <= 0xdbff && unit >= 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: two code units, four bytes.
      length += 2;
      i++;
    } else {
      length += 2;
    }
  }
  return length;
}

/** Why `text` cannot be kept as text, or undefined when it can (its length aside). */
function textFault(text: string): string | undefined {
  // PostgreSQL's text cannot hold U+0000; refused everywhere so that every store keeps the same strings.
  if (text.includes('\u0000')) return 'it contains U+0000, which no store keeps in text';
  // UTF-8 has no encoding for it: a driver would store U+FFFD, and two distinct ids could become one.
  if (LONE_SURROGATE.test(text)) return 'it contains a lone UTF-16 surrogate, which has no UTF-8 encoding';
  return undefined;
}

/**
 * Whether text could be stored: a string without U+0000 or a lone surrogate, of at most `MAX_TEXT_BYTES`
 * UTF-8 bytes; null and undefined (no value) too. A lookup by anything else finds nothing, as nothing stored
 * can equal it, so stores answer it without asking their database.
 */
export function isStorableText(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  return typeof value === 'string' && textFault(value) === undefined && fitsText(value, MAX_TEXT_BYTES);
}

/** The ids of a lookup a store can hold (strings {@link isStorableText} allows), each once, in their order. */
export function distinctStorableIds(ids: readonly unknown[]): string[] {
  const seen = new Set<string>();
  for (const id of ids) if (typeof id === 'string' && isStorableText(id)) seen.add(id);
  return [...seen];
}

/** How refusals name a value that is not of the type the contract says. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return `the ${typeof value} ${String(value)}`;
}

function fitsText(text: string, maxBytes: number): boolean {
  // Every UTF-16 code unit takes at most 3 UTF-8 bytes, so short text needs no count.
  return text.length * 3 <= maxBytes || utf8Length(text) <= maxBytes;
}

/**
 * Refuse text a store would keep differently from the others, or not at all.
 *
 * @param path the field as refusals name it, e.g. `meta.businessKey`
 * @throws UnencodableValueError when it is not a string (or null, where `nullable`), or holds U+0000 or a
 *   lone surrogate; LimitExceededError when it is over `maxBytes` UTF-8 bytes (`MAX_TEXT_BYTES` by default)
 */
export function checkText(
  path: string,
  value: unknown,
  options: { nullable?: boolean; maxBytes?: number; limitName?: string } = {},
): void {
  if (value === null && options.nullable) return;
  if (typeof value !== 'string') {
    throw new UnencodableValueError(
      path,
      `it is ${kindOf(value)}, not ${options.nullable ? 'a string or null' : 'a string'}`,
    );
  }
  const fault = textFault(value);
  if (fault !== undefined) throw new UnencodableValueError(path, fault);
  const maxBytes = options.maxBytes ?? MAX_TEXT_BYTES;
  if (!fitsText(value, maxBytes)) {
    throw new LimitExceededError(path, utf8Length(value), maxBytes, options.limitName ?? 'MAX_TEXT_BYTES');
  }
}

/**
 * Refuse bytes that are not a `Uint8Array` or are over `MAX_DOCUMENT_BYTES`.
 *
 * @throws UnencodableValueError when not a `Uint8Array`; LimitExceededError when too long
 */
export function checkBytes(path: string, value: unknown): void {
  if (!(value instanceof Uint8Array)) throw new UnencodableValueError(path, `it is ${kindOf(value)}, not a Uint8Array`);
  if (value.byteLength > MAX_DOCUMENT_BYTES) {
    throw new LimitExceededError(path, value.byteLength, MAX_DOCUMENT_BYTES, 'MAX_DOCUMENT_BYTES');
  }
}

/**
 * Refuse a number that is not a safe integer in `[min, max]`: PostgreSQL's integer columns refuse fractions
 * and SQLite would keep them, so either would differ from the other stores.
 *
 * @throws RangeError naming the field and the value
 */
export function checkInteger(
  path: string,
  value: unknown,
  min = Number.MIN_SAFE_INTEGER,
  max = Number.MAX_SAFE_INTEGER,
) {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${path} must be an integer from ${min} to ${max}, not ${kindOf(value)}`);
  }
}

export function checkObject(path: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UnencodableValueError(path, `it is ${kindOf(value)}, not an object`);
  }
}

/** The largest `schema` a store keeps: PostgreSQL's `INTEGER`. */
const MAX_SCHEMA = 2 ** 31 - 1;

/**
 * Everything `put` stores, checked before a store reads anything: text (`checkText`), the document's bytes
 * (`checkBytes`), seqs, schema and due time, the shape of `meta`, and that the parent link is whole:
 * `parentId` and `callNodeId` both null (a root) or both set, and not the instance itself.
 *
 * @throws UnencodableValueError, LimitExceededError, RangeError or ParentLinkError naming the field
 */
export function checkPutArguments(checkpoint: PutCheckpoint): void {
  checkObject('checkpoint', checkpoint);
  const { instanceId, meta } = checkpoint;
  checkText('instanceId', instanceId);
  checkInteger('seq', checkpoint.seq);
  if (checkpoint.parentSeq !== null) checkInteger('parentSeq', checkpoint.parentSeq);
  checkInteger('schema', checkpoint.schema, 1, MAX_SCHEMA);
  checkText('definitionDigest', checkpoint.definitionDigest);
  checkText('digest', checkpoint.digest);
  checkBytes('bytes', checkpoint.bytes);
  checkObject('meta', meta);
  for (const field of ['status', 'processId', 'definitionId'] as const) checkText(`meta.${field}`, meta[field]);
  for (const field of ['businessKey', 'parentId', 'callNodeId'] as const) {
    checkText(`meta.${field}`, meta[field], { nullable: true });
  }
  if (meta.dueAt !== null && (typeof meta.dueAt !== 'number' || !Number.isFinite(meta.dueAt))) {
    throw new RangeError(`meta.dueAt must be a finite epoch ms or null, not ${kindOf(meta.dueAt)}`);
  }
  const { endedAt } = meta;
  if (endedAt !== undefined && endedAt !== null && (typeof endedAt !== 'number' || !Number.isFinite(endedAt))) {
    throw new RangeError(`meta.endedAt must be a finite epoch ms or null, not ${kindOf(endedAt)}`);
  }
  if (checkpoint.log !== undefined) checkBytes('log', checkpoint.log);
  if (checkpoint.keepLast !== undefined) checkInteger('keepLast', checkpoint.keepLast, 1);
  if (!Array.isArray(meta.subscriptions)) {
    throw new UnencodableValueError('meta.subscriptions', `it is ${kindOf(meta.subscriptions)}, not an array`);
  }
  for (const [i, subscription] of meta.subscriptions.entries()) {
    checkObject(`meta.subscriptions[${i}]`, subscription);
    checkText(`meta.subscriptions[${i}].name`, subscription.name);
    checkText(`meta.subscriptions[${i}].key`, subscription.key, { nullable: true });
  }
  const { parentId, callNodeId } = meta;
  if (parentId !== null && callNodeId === null) {
    throw new ParentLinkError(
      instanceId,
      'meta.callNodeId',
      `is null while meta.parentId is ${JSON.stringify(parentId)}: a called child names the call node that started it`,
    );
  }
  if (parentId === null && callNodeId !== null) {
    throw new ParentLinkError(
      instanceId,
      'meta.parentId',
      `is null while meta.callNodeId is ${JSON.stringify(callNodeId)}: only a called child has a call node`,
    );
  }
  if (parentId === instanceId) throw new ParentLinkError(instanceId, 'meta.parentId', 'names the instance itself');
  checkPutLease(checkpoint);
  if (checkpoint.deploymentsSeen !== undefined) {
    checkInteger('deploymentsSeen', checkpoint.deploymentsSeen, 0);
    if (checkpoint.parentSeq !== null) {
      throw new RangeError(
        `deploymentsSeen is only for an instance's first put (parentSeq null), not parentSeq ${checkpoint.parentSeq}`,
      );
    }
  }
}

/** `claim` only on a first, unfenced put; `release` only on a fenced one; never both. */
function checkPutLease(checkpoint: PutCheckpoint): void {
  const { claim, release } = checkpoint;
  if (release !== undefined && typeof release !== 'boolean') {
    throw new RangeError(`release must be a boolean, got ${kindOf(release)}`);
  }
  if (release === true && checkpoint.fence === undefined) {
    throw new RangeError('release needs the fence of the lease it releases');
  }
  if (claim === undefined) return;
  checkObject('claim', claim);
  checkLeaseArguments(claim);
  checkText('claim.owner', claim.owner);
  if (checkpoint.parentSeq !== null) {
    throw new RangeError(
      `claim is only for an instance's first put (parentSeq null), not parentSeq ${checkpoint.parentSeq}`,
    );
  }
  if (checkpoint.fence !== undefined) throw new RangeError('claim cannot be fenced: a first put has no lease yet');
  if (release === true) throw new RangeError('claim and release cannot be given together');
}

/**
 * What `putReader` stores, checked before a store reads anything: the name and cursor (`checkText`) and that
 * the position is text or null (whether it is one of the store's positions is the store's to judge).
 *
 * @throws UnencodableValueError, LimitExceededError or RangeError naming the field
 */
export function checkReaderArguments(reader: LogReader): void {
  checkObject('reader', reader);
  checkText('reader.name', reader.name);
  checkText('reader.cursor', reader.cursor, { nullable: true });
  if (reader.position !== null && typeof reader.position !== 'string') {
    throw new RangeError(`reader.position must be a position history returned or null, not ${kindOf(reader.position)}`);
  }
}

/**
 * `expire`'s options: `endedBefore` a finite epoch ms, `limit` a positive safe integer.
 *
 * @throws RangeError naming the option
 */
export function checkExpireArguments(options: ExpireOptions): void {
  checkObject('options', options);
  if (typeof options.endedBefore !== 'number' || !Number.isFinite(options.endedBefore)) {
    throw new RangeError(`endedBefore must be a finite epoch ms, not ${kindOf(options.endedBefore)}`);
  }
  checkInteger('limit', options.limit, 1);
}

/**
 * What `rewrite` stores, checked before a store reads anything. The instance id and `expectedDigest` are
 * only looked up: text no store can hold finds no checkpoint, so the store refuses with `ConflictError`.
 *
 * @throws UnencodableValueError, LimitExceededError or RangeError naming the field
 */
export function checkRewriteArguments(checkpoint: RewriteCheckpoint): void {
  checkObject('checkpoint', checkpoint);
  checkInteger('seq', checkpoint.seq);
  checkInteger('schema', checkpoint.schema, 1, MAX_SCHEMA);
  checkText('digest', checkpoint.digest);
  checkBytes('bytes', checkpoint.bytes);
  if (checkpoint.log !== undefined) checkBytes('log', checkpoint.log);
}

/**
 * What `putWrites` stores, checked before a store reads anything, so a batch is refused whole: each entry's
 * task id (`checkText`), index (a safe integer, negative ones included) and value (`checkBytes`).
 *
 * @throws UnencodableValueError, LimitExceededError or RangeError naming the entry, e.g. `writes[2].taskId`
 */
export function checkWritesArguments(instanceId: string, seq: number, writes: readonly unknown[]): void {
  checkText('instanceId', instanceId);
  checkInteger('seq', seq);
  if (!Array.isArray(writes)) throw new UnencodableValueError('writes', `it is ${kindOf(writes)}, not an array`);
  for (const [i, entry] of writes.entries()) {
    checkObject(`writes[${i}]`, entry);
    const { taskId, index, value } = entry as Record<string, unknown>;
    checkText(`writes[${i}].taskId`, taskId);
    checkInteger(`writes[${i}].index`, index);
    checkBytes(`writes[${i}].value`, value);
  }
}

/**
 * The `putMessage` argument rule: its text (`checkText`), its variables (`checkBytes`), and times no store
 * could order or compare the same way.
 *
 * @throws UnencodableValueError or LimitExceededError naming the field; RangeError when `publishedAt` or
 *   `expiresAt` is not a finite epoch ms
 */
export function checkMessage(message: BufferedMessage): void {
  checkObject('message', message);
  checkText('message.id', message.id);
  checkText('message.name', message.name);
  checkText('message.correlationKey', message.correlationKey, { nullable: true });
  checkBytes('message.variables', message.variables);
  for (const field of ['publishedAt', 'expiresAt'] as const) {
    if (typeof message[field] !== 'number' || !Number.isFinite(message[field])) {
      throw new RangeError(
        `${field} of message ${JSON.stringify(message.id)} must be a finite epoch ms, not ${kindOf(message[field])}`,
      );
    }
  }
}

/**
 * What `putDeployment` stores: definition id and digest (`checkText`), the XML (text of at most
 * `MAX_DOCUMENT_BYTES` UTF-8 bytes) and `deployedAt`, an integer epoch ms (PostgreSQL keeps it as `BIGINT`).
 *
 * @throws UnencodableValueError, LimitExceededError or RangeError naming the field
 */
export function checkDeploymentArguments(deployment: DeploymentInput): void {
  checkObject('deployment', deployment);
  checkText('definitionId', deployment.definitionId);
  checkText('digest', deployment.digest);
  checkText('xml', deployment.xml, { maxBytes: MAX_DOCUMENT_BYTES, limitName: 'MAX_DOCUMENT_BYTES' });
  checkInteger('deployedAt', deployment.deployedAt);
}

/**
 * What `claim` stores: the lease arguments (`checkLeaseArguments`) and the owner (`checkText`). The
 * `instanceIds` are only looked up: one no store can hold is skipped like any id the store does not have.
 *
 * @throws RangeError, UnencodableValueError or LimitExceededError naming the argument
 */
export function checkClaimArguments(options: ClaimOptions): void {
  checkLeaseArguments(options);
  checkText('owner', options.owner);
  if (options.lapsedOnly !== undefined && typeof options.lapsedOnly !== 'boolean') {
    throw new RangeError(`lapsedOnly must be a boolean, got ${String(options.lapsedOnly)}`);
  }
}
