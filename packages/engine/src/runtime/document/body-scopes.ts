import type { PackedTrack, ScopeRecord, TrackRecord } from '@thresher/checkpoint';
import { InvalidStateError } from '../../common/errors.js';
import { initialBodyData } from '../../core/composites/loops.js';
import { newScope } from '../../core/step/records.js';
import { initialScopeState } from '../../machines/index.js';

/**
 * Bodies of looping activities in the checkpoint document. A body scope is derivable from its host's loop
 * record until something writes into it — its path names its parent, element, pass and ordinal; its data is
 * `loopCounter` and the item — so the document writes such a body as its path alone (schema 5), and opening
 * the document builds the record again, in its place in the scope order.
 */

/** `<parent>/<element>[#pass][ordinal]`, as `records.ts#scopePath` writes a body's path. */
const BODY_PATH = /^(.*)\/([^/#[]+)(?:#(\d+))?\[(\d+)\]$/;

/** The scopes as the document writes them: a body its host derives whole becomes its path. */
export function packScopes(
  scopes: Iterable<ScopeRecord>,
  tracks: ReadonlyMap<string, TrackRecord>,
): (ScopeRecord | string)[] {
  const packed: (ScopeRecord | string)[] = [];
  for (const scope of scopes) {
    const host = scope.hostTrack === null ? undefined : tracks.get(scope.hostTrack);
    packed.push(host?.loop && derivable(scope, host) ? scope.path : scope);
  }
  return packed;
}

/** The scope records a document's scope list stands for, bodies written as paths built again. */
export function unpackScopes(
  entries: readonly (ScopeRecord | string)[],
  tracks: readonly (TrackRecord | PackedTrack)[],
): ScopeRecord[] {
  let hosts: Map<string, TrackRecord> | undefined;
  // A host's bodies are written one after the other: a path that only adds an ordinal to the last one's
  // `<parent>/<element>[#pass][` is that host's, without the regex and the lookup (1,000 bodies: 1,000 paths).
  let lastPrefix = '';
  let lastHost: TrackRecord | undefined;
  return entries.map((entry) => {
    if (typeof entry !== 'string') return entry;
    let host: TrackRecord | undefined;
    let ordinal = ordinalAfter(entry, lastPrefix);
    if (ordinal !== undefined) host = lastHost;
    else {
      // Hosts are records: a track with a loop is never written packed.
      hosts ??= new Map(
        tracks
          .filter((t): t is TrackRecord => typeof t !== 'string' && t.loop !== undefined)
          .map((t) => [hostKey(t.scopePath, t.nodeId, t.attempt), t]),
      );
      const match = BODY_PATH.exec(entry);
      host = match ? hosts.get(hostKey(match[1] || '/', match[2]!, match[3] ? Number(match[3]) - 1 : 0)) : undefined;
      if (!match || !host) throw new InvalidStateError(`scope "${entry}" names no body of a looping activity`);
      ordinal = Number(match[4]);
      lastPrefix = entry.slice(0, entry.length - match[4]!.length - 1);
      lastHost = host;
    }
    const scope = newScope(entry, host!.nodeId, host!.scopePath, host!.id, initialBodyData(host!.loop!, ordinal));
    scope.visits[host!.nodeId] = 1;
    return scope;
  });
}

/**
 * The ordinal of `path` when it is `prefix` (non-empty) followed by digits and `]`, as BODY_PATH reads it (up
 * to 15 digits, which add up exactly; longer ones go the regex's way).
 */
function ordinalAfter(path: string, prefix: string): number | undefined {
  const end = path.length - 1;
  const digits = end - prefix.length;
  if (prefix === '' || digits < 1 || digits > 15 || path.charCodeAt(end) !== CLOSE || !path.startsWith(prefix)) {
    return undefined;
  }
  let ordinal = 0;
  for (let at = prefix.length; at < end; at++) {
    const digit = path.charCodeAt(at) - ZERO;
    if (digit < 0 || digit > 9) return undefined;
    ordinal = ordinal * 10 + digit;
  }
  return ordinal;
}

const CLOSE = ']'.charCodeAt(0);
const ZERO = '0'.charCodeAt(0);

function hostKey(scopePath: string, nodeId: string, pass: number): string {
  return `${scopePath}|${nodeId}|${pass}`;
}

/**
 * Whether a body scope is exactly what its host derives: open, no ledger, its element entered once, and its data the
 * initial data, value for value (an item is the very one in the host's list, so one written over is not).
 */
function derivable(scope: ScopeRecord, host: TrackRecord): boolean {
  if (scope.state !== ACTIVE || scope.nodeId !== host.nodeId || scope.parentPath !== host.scopePath) return false;
  if (scope.ledger) return false;
  const match = BODY_PATH.exec(scope.path);
  if (!match || (match[3] ? Number(match[3]) - 1 : 0) !== host.attempt) return false;
  const visits = Object.keys(scope.visits);
  if (visits.length !== 1 || scope.visits[host.nodeId] !== 1) return false;
  const expected = initialBodyData(host.loop!, Number(match[4]));
  const names = Object.keys(scope.data);
  if (names.length !== Object.keys(expected).length) return false;
  return names.every((name) => Object.hasOwn(expected, name) && Object.is(scope.data[name], expected[name]));
}

const ACTIVE = initialScopeState();
