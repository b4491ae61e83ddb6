/**
 * The step log: what each step of an instance did, written once with the step's checkpoint (`PutCheckpoint.log`)
 * and kept when that checkpoint is pruned. A checkpoint holds the live state only; the instance's past (the
 * elements it completed, the flows it took, the decisions it evaluated, the events it published) is here, so a
 * document's size does not grow with the instance's age.
 *
 * @module
 */

import type { DecisionRecord, HistoryEntry, StepEvent } from './body-records.js';
import { canonicalJson, decodeParsed } from './codec.js';
import { sha256 } from './digest.js';
import { CorruptLogError, FutureSchemaError } from './errors.js';

/** The format of the log entries this build writes; a newer one is refused (`FutureSchemaError`). */
export const STEP_LOG_SCHEMA = 1;

/** A sequence flow a step took, in the scope it was taken in. */
export interface FlowEntry {
  flow: string;
  scope: string;
}

/** What one step of an instance did, as the log keeps it. A list the step has nothing for is absent. */
export interface StepLog {
  schema: number;
  instanceId: string;
  /** The seq of the checkpoint the step wrote. */
  seq: number;
  /** The process and deployment the instance ran on in the step (what its touchpoint events are read back with). */
  processId: string;
  definitionDigest: string;
  /** When the step was written (epoch ms): the time of its events that carry none of their own. */
  capturedAt: number;
  /** Elements the step completed, in order. */
  completed?: HistoryEntry[];
  /** Sequence flows the step took, in order. */
  flows?: FlowEntry[];
  /** Business rule tasks' evaluations the step made, in order. */
  decisions?: DecisionRecord[];
  /**
   * The events the step announced, in order (what `engine.on` publishes): without the instance id and time the
   * entry holds, a track event as its relative id alone, a touchpoint event without what the process's
   * touchpoint plan gives back (engine `runtime/document/step-events.ts`).
   */
  events?: (StepEvent | string)[];
  /** sha256 over the canonical encoding of every other field. */
  digest: string;
}

/** A log entry before it is sealed. */
export type UnsealedStepLog = Omit<StepLog, 'digest' | 'schema'>;

const LISTS = ['completed', 'flows', 'decisions', 'events'] as const;

/**
 * Seal a step's log entry and encode it: the bytes a put files with the step's checkpoint. Encoded once, on the
 * loop's hot path: the fields' canonical text in their sorted order, the digest over it, then the digest put in
 * its sorted place (after `definitionDigest`).
 */
export function sealStepLog(unsealed: UnsealedStepLog): { log: StepLog; bytes: Uint8Array } {
  const { instanceId, seq, processId, definitionDigest, capturedAt, completed, flows, decisions, events } = unsealed;
  const list = (name: string, value: readonly unknown[] | undefined): string =>
    value === undefined || value.length === 0 ? '' : `,"${name}":${canonicalJson(value, `$log.${name}`)}`;
  const head =
    `{"capturedAt":${canonicalJson(capturedAt)}${list('completed', completed)}${list('decisions', decisions)}` +
    `,"definitionDigest":${canonicalJson(definitionDigest)}`;
  const tail =
    `${list('events', events)}${list('flows', flows)},"instanceId":${canonicalJson(instanceId)}` +
    `,"processId":${canonicalJson(processId)},"schema":${STEP_LOG_SCHEMA},"seq":${canonicalJson(seq)}}`;
  const digest = sha256(head + tail);
  const log: StepLog = { schema: STEP_LOG_SCHEMA, instanceId, seq, processId, definitionDigest, capturedAt, digest };
  if (completed?.length) log.completed = completed;
  if (flows?.length) log.flows = flows;
  if (decisions?.length) log.decisions = decisions;
  if (events?.length) log.events = events;
  return { log, bytes: Buffer.from(`${head},"digest":"${digest}"${tail}`, 'utf8') };
}

/** Whether `text` is what sealing wrote for `digest`: the text without its digest field hashes to it. */
function sealedAs(text: string, digest: string): boolean {
  const field = `"digest":"${digest}",`;
  const at = text.indexOf(field);
  return at > 0 && sha256(text.slice(0, at) + text.slice(at + field.length)) === digest;
}

/**
 * Decode a stored log entry: its digest checked, a future format refused, its instance and seq checked
 * against where it was read from.
 */
export function openStepLog(bytes: Uint8Array, where: { instanceId: string; seq: number }): StepLog {
  const fail = (reason: string, cause?: unknown): never => {
    throw new CorruptLogError(where.instanceId, where.seq, reason, cause === undefined ? undefined : { cause });
  };
  let raw: unknown;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  try {
    raw = decodeParsed(JSON.parse(text));
  } catch (cause) {
    return fail('the bytes are not a JSON document', cause);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('the entry is not an object');
  const { digest, ...rest } = raw as Record<string, unknown>;
  const { schema } = rest;
  if (typeof schema !== 'number' || !Number.isInteger(schema) || schema < 1)
    fail(`schema "${String(schema)}" is not a version`);
  if ((schema as number) > STEP_LOG_SCHEMA)
    throw new FutureSchemaError(where.instanceId, schema as number, STEP_LOG_SCHEMA);
  if (typeof digest !== 'string' || (!sealedAs(text, digest) && digest !== sha256(canonicalJson(rest, '$log')))) {
    fail('the digest does not match the content');
  }
  if (rest.instanceId !== where.instanceId) fail(`the entry belongs to instance ${String(rest.instanceId)}`);
  if (rest.seq !== where.seq) fail(`the entry is seq ${String(rest.seq)}`);
  if (typeof rest.processId !== 'string') fail('processId is missing');
  if (typeof rest.definitionDigest !== 'string') fail('definitionDigest is missing');
  if (typeof rest.capturedAt !== 'number') fail('capturedAt is missing');
  for (const list of LISTS) if (rest[list] !== undefined && !Array.isArray(rest[list])) fail(`${list} is not a list`);
  return raw as StepLog;
}
