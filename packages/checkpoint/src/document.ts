import type { CheckpointBody, CheckpointDocument } from './body-records.js';
import { canonicalBytes, canonicalJson, decodeParsed } from './codec.js';
import { sha256, sha256Of } from './digest.js';
import { CorruptCheckpointError, FutureSchemaError } from './errors.js';
import { migrateToCurrent } from './migrations.js';

/** The schema this build writes. Every change to the body bumps it and adds a migration. */
export const CURRENT_SCHEMA = 14;

/** A document before it is sealed with its digest. */
export type UnsealedCheckpoint = Omit<CheckpointDocument, 'digest' | 'schema'>;

/** The digest of a document: sha256 over the canonical encoding of every field but `digest`. */
export function checkpointDigest(document: Omit<CheckpointDocument, 'digest'>): string {
  return sha256(canonicalBytes(document, '$checkpoint'));
}

/**
 * Seal a document at the current schema and encode it. The body is encoded at capture time, so a value
 * that cannot be restored (a function, a cycle) fails here, naming its path, not on restore.
 */
export function sealCheckpoint(unsealed: UnsealedCheckpoint): { document: CheckpointDocument; bytes: Uint8Array } {
  const withSchema = { ...unsealed, schema: CURRENT_SCHEMA };
  const text = canonicalJson(withSchema, '$checkpoint');
  const digest = sha256(text);
  const document: CheckpointDocument = { ...withSchema, digest };
  // Encoded once: the sealed text is the unsealed one with `"digest"` in its sorted place, before the
  // top-level `"instanceId"` (a key inside a string value would have escaped quotes, so the last match is it).
  const at = text.lastIndexOf(',"instanceId":');
  const sealed = `${text.slice(0, at)},"digest":${JSON.stringify(digest)}${text.slice(at)}`;
  return { document, bytes: Buffer.from(sealed, 'utf8') };
}

/**
 * Whether `text` is what `sealCheckpoint` writes for `digest`: its digest field where sealing puts it, and the
 * text without it hashing to `digest`. Then the document is what was sealed, without encoding it again; any
 * other text (an older build's layout, bytes changed) is checked the long way, by re-encoding.
 */
function sealedAs(stored: Buffer, digest: string): boolean {
  // Byte offsets, searched in the bytes: the two fields are ASCII, whatever the text before them holds.
  const at = stored.lastIndexOf(INSTANCE_ID_FIELD);
  const field = `,"digest":${JSON.stringify(digest)}`;
  const from = at - field.length;
  if (from < 0 || stored.toString('latin1', from, at) !== field) return false;
  return sha256Of(stored.subarray(0, from), stored.subarray(at)) === digest;
}

/** The field sealing puts right after the digest, as bytes (searched in every stored document). */
const INSTANCE_ID_FIELD = Buffer.from(',"instanceId":', 'latin1');

/** Where a stored document was read from: named by errors, and checked against what the document says. */
export interface StoredAt {
  instanceId: string;
  /** The seq it is stored at; the document must say the same. */
  seq?: number;
  /** The store's schema column for it; the document must say the same (a tampered column is corruption). */
  schema?: number;
}

/**
 * Decode stored bytes: verify the digest, refuse a future schema, migrate an older one, check the shape.
 * `expected` names the instance and seq for errors (the bytes may be too broken to say), and what the
 * store's row says of the document is checked against the document.
 */
export function openCheckpoint(bytes: Uint8Array, expected: StoredAt): CheckpointDocument {
  let raw: unknown;
  const stored = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    raw = decodeParsed(JSON.parse(stored.toString('utf8')));
  } catch (cause) {
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, 'the bytes are not a JSON document', { cause });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, 'the document is not an object');
  }
  const record = raw as Record<string, unknown>;
  // A document without a schema field predates versioning: it is the oldest version, not an error.
  const schema = record.schema === undefined ? 1 : record.schema;
  if (typeof schema !== 'number' || !Number.isInteger(schema) || schema < 1) {
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, `schema "${String(schema)}" is not a version`);
  }
  if (expected.schema !== undefined && expected.schema !== schema) {
    const reason = `the store's schema column says ${expected.schema}, but the document is schema ${schema}`;
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, reason);
  }
  // Checked before the digest: a newer build may seal documents differently, and must be refused as such.
  if (schema > CURRENT_SCHEMA) throw new FutureSchemaError(expected.instanceId, schema, CURRENT_SCHEMA);
  const { digest, ...rest } = record;
  if (
    typeof digest !== 'string' ||
    (!sealedAs(stored, digest) && digest !== checkpointDigest(rest as Omit<CheckpointDocument, 'digest'>))
  ) {
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, 'the digest does not match the content');
  }
  const migrated = migrateToCurrent({ ...record, schema }, schema);
  assertShape(migrated, expected);
  if (migrated.instanceId !== expected.instanceId) {
    throw new CorruptCheckpointError(
      expected.instanceId,
      expected.seq,
      `the document belongs to instance ${migrated.instanceId}`,
    );
  }
  if (expected.seq !== undefined && migrated.seq !== expected.seq) {
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, `the document is seq ${migrated.seq}`);
  }
  return migrated;
}

const BODY_LISTS: (keyof CheckpointBody)[] = [
  'scopes',
  'tracks',
  'jobs',
  'userTasks',
  'incidents',
  'timers',
  'subscriptions',
  'outbox',
];

function assertShape(
  doc: Record<string, unknown>,
  expected: StoredAt,
): asserts doc is CheckpointDocument & Record<string, unknown> {
  const fail = (reason: string): never => {
    throw new CorruptCheckpointError(expected.instanceId, expected.seq, reason);
  };
  if (typeof doc.instanceId !== 'string') fail('instanceId is missing');
  if (typeof doc.seq !== 'number') fail('seq is missing');
  if (typeof doc.definitionDigest !== 'string') fail('definitionDigest is missing');
  const body = doc.body as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) return fail('body is missing');
  const instance = body.instance as Record<string, unknown> | undefined;
  if (typeof instance !== 'object' || instance === null || typeof instance.id !== 'string') {
    fail('body.instance is missing');
  }
  for (const list of BODY_LISTS) if (!Array.isArray(body[list])) fail(`body.${list} is not a list`);
  if (body.touchpoints !== null && !Array.isArray(body.touchpoints)) fail('body.touchpoints is not a list or null');
  const past = body.past as Record<string, unknown> | undefined;
  if (past !== undefined) {
    if (typeof past !== 'object' || past === null) return fail('body.past is not an object');
    if (!Array.isArray(past.history)) fail('body.past.history is not a list');
    if (past.decisions !== undefined && !Array.isArray(past.decisions)) fail('body.past.decisions is not a list');
    if (past.events !== undefined && !Array.isArray(past.events)) fail('body.past.events is not a list');
  }
  if (body.conditions !== undefined && !Array.isArray(body.conditions)) fail('body.conditions is not a list');
}
