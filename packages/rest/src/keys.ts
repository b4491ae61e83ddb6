/**
 * Camunda's keys (int64, as decimal strings) for what Thresher names otherwise. None is allocated apart from what
 * the store already keeps, so a key adds no write:
 *
 * - an instance's key is its store serial (`InstanceSummary.serial`) shifted left 24 bits, and whatever the
 *   instance made (a job, a user task, an incident, an element's activation) adds the number of the engine's
 *   per-instance id it has (`j17` → 17): unique in the store, the same on every process sharing it, for good;
 * - a message or signal passing through (kept by no store) has a key of bit 61 and random bits;
 * - an element's activation, a variable or a scope has a key of bit 60 and a hash of its instance's serial and
 *   what names it (the activation's scope, element and attempt; the variable's scope and name; the scope's path);
 * - a deployed resource's key has bit 62 set, then 54 bits of its deployment's digest and 8 of its place in it
 *   (0 the deployment itself, 1… its processes and decisions): the same wherever the model is deployed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Problem, ProblemKind } from './problem.js';

const LOCAL_BITS = 24n;
const LOCAL_MASK = (1n << LOCAL_BITS) - 1n;
const RESOURCE_BIT = 1n << 62n;
const INT64_MAX = (1n << 63n) - 1n;

/** The most ids an instance can number under one key (its engine's `nextId` counter). */
export const MAX_LOCAL = Number(LOCAL_MASK);

/** The most serials keys can tell apart: 2^36 instances, beneath the bits of named, passing and resource keys. */
export const MAX_SERIAL = 2 ** 36 - 1;

/** Set on a passing key (bit 62 clear): a message or signal no store keeps, numbered at random. */
const PASSING_BIT = 1n << 61n;

/** Set on a named key (bits 61 and 62 clear): a variable or scope an instance names rather than numbers. */
const NAMED_BIT = 1n << 60n;

/** A process instance's key from its store serial. */
export function instanceKey(serial: number): string {
  return (keyedSerial(serial) << LOCAL_BITS).toString();
}

function keyedSerial(serial: number): bigint {
  if (!Number.isSafeInteger(serial) || serial < 1 || serial > MAX_SERIAL) {
    throw new RangeError(`serial ${serial} is outside what a key numbers (1..${MAX_SERIAL})`);
  }
  return BigInt(serial);
}

/**
 * The key of something an instance made, from the instance's serial and the engine's id for it (`j17`, `u3`).
 * Undefined when the id is past what a key can number ({@link MAX_LOCAL}).
 */
export function localKey(serial: number, localId: string): string | undefined {
  const number = Number(/^[a-z](\d+)$/.exec(localId)?.[1] ?? Number.NaN);
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_LOCAL) return undefined;
  return ((keyedSerial(serial) << LOCAL_BITS) + BigInt(number)).toString();
}

/** The engine's local id of what a key of an instance's numbers (`j3` with `letter` j). */
export function localIdOf(key: string, letter: string): string {
  return `${letter}${BigInt(key) & LOCAL_MASK}`;
}

/** The key of what an instance made, from the engine's external id of it (`<instanceId>/u3`). */
export function externalKey(serial: number, externalId: string): string | undefined {
  return localKey(serial, externalId.slice(externalId.lastIndexOf('/') + 1));
}

/** What a key names: an instance (or what it made: `local` > 0), or a deployed resource. */
export type KeyParts =
  | { kind: 'instance'; serial: number; local: number }
  | { kind: 'resource'; digestBits: bigint; index: number }
  | { kind: 'passing' }
  | { kind: 'named' };

/**
 * A key for what passes through without being kept (a published message, a broadcast signal): bit 61 and 60
 * random bits, apart from every instance and resource key, unique with odds of 1 in 10^18 per pair.
 */
export function passingKey(): string {
  const random = randomBytes(8).readBigUInt64BE(0) & (PASSING_BIT - 1n);
  return (PASSING_BIT | random).toString();
}

/**
 * A published message's key: the passing bit and a hash of its name, correlation key and id, so the key a publication
 * answers is the one its correlations are searched by (`messageId` unique per name and key, as Zeebe keeps it).
 */
export function messageKey(name: string, correlationKey: string | null, messageId: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify(['message', name, correlationKey, messageId]))
    .digest();
  return (PASSING_BIT | (hash.readBigUInt64BE(0) & (PASSING_BIT - 1n))).toString();
}

/**
 * The key of what an instance names instead of numbering (a variable by its scope and name, a scope by its path):
 * bit 60 and 60 bits of a hash of the instance's serial and the names, the same wherever it is computed; two
 * names share a key with odds of 1 in 10^18 per pair.
 */
export function namedKey(serial: number, ...names: string[]): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([keyedSerial(serial).toString(), ...names]))
    .digest();
  return (NAMED_BIT | (hash.readBigUInt64BE(0) & (NAMED_BIT - 1n))).toString();
}

/** The key of an element's activation in an instance (`ElementInstanceView.id`, `<scope>:<element>:<attempt>`). */
export function elementInstanceKey(serial: number, elementInstanceId: string): string {
  return namedKey(serial, 'element', elementInstanceId);
}

/** The key of a variable, by its scope's path and its name. */
export function variableKey(serial: number, scope: string, name: string): string {
  return namedKey(serial, 'variable', scope, name);
}

/** The parts of a key as a request gave it, or a 400 naming `where`. */
export function readKey(text: string, where: string): KeyParts {
  if (!/^[1-9]\d{0,18}$/.test(text) || BigInt(text) > INT64_MAX) {
    throw new Problem(
      ProblemKind.InvalidArgument,
      `${where}: "${text}" is not a key (a positive int64 as a decimal string)`,
    );
  }
  const key = BigInt(text);
  if ((key & RESOURCE_BIT) !== 0n) {
    return { kind: 'resource', digestBits: (key & (RESOURCE_BIT - 1n)) >> 8n, index: Number(key & 0xffn) };
  }
  if ((key & PASSING_BIT) !== 0n) return { kind: 'passing' };
  if ((key & NAMED_BIT) !== 0n) return { kind: 'named' };
  return { kind: 'instance', serial: Number(key >> LOCAL_BITS), local: Number(key & LOCAL_MASK) };
}

/** The key of resource `index` (0: the deployment) of the deployment whose digest (or digests, joined) is given. */
export function resourceKey(digest: string, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > 0xff)
    throw new RangeError(`resource index ${index} is out of 0..255`);
  return (RESOURCE_BIT + (digestBits(digest) << 8n) + BigInt(index)).toString();
}

/** 54 bits of a digest: what a resource key keeps of it. */
export function digestBits(digest: string): bigint {
  const hash = createHash('sha256').update(digest).digest();
  return hash.readBigUInt64BE(0) >> 10n;
}
