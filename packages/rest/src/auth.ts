/**
 * Who may call the server: HTTP Basic against a users file of scrypt hashes, or bearer JWTs verified against an
 * issuer's JWKS (jose). `startCamundaRestServer({ authenticate })` asks before every request (the API and its
 * mounts alike); without one it serves loopback only.
 *
 * @module
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import { Problem, ProblemKind } from './problem.js';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;

/** Resolves when the request may go on; a `401` problem (its `challenge` for `WWW-Authenticate`) otherwise. */
export interface Authenticator {
  /** The `WWW-Authenticate` challenge a refusal answers with (`Basic realm="thresher"`, `Bearer`). */
  readonly challenge: string;
  authenticate(req: IncomingMessage): Promise<void>;
}

const KEY_BYTES = 32;
/** How long a checked Basic credential is remembered, so a worker's every poll does not run scrypt again. */
const REMEMBER_MS = 5 * 60_000;
const REMEMBERED = 1_000;

function refused(detail: string): Problem {
  return new Problem(ProblemKind.Unauthorized, detail);
}

/** The line a users file keeps for a password: `scrypt:<salt hex>:<key hex>` (`thresher serve --hash-password`). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt:${salt.toString('hex')}:${(await scrypt(password, salt, KEY_BYTES)).toString('hex')}`;
}

/**
 * The users of a users file: one `name:scrypt:<salt hex>:<key hex>` per line; blank lines and `#` comments
 * skipped. A line of another shape is refused naming its number (a password is never kept in the clear).
 */
export function readUsers(text: string, source = 'the users file'): Map<string, { salt: Buffer; key: Buffer }> {
  const users = new Map<string, { salt: Buffer; key: Buffer }>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([^:\s]+):scrypt:([0-9a-f]{32}):([0-9a-f]{64})$/.exec(line);
    if (!match) {
      throw new RangeError(
        `${source} line ${index + 1}: not "name:scrypt:<salt>:<key>" (make one with thresher serve --hash-password)`,
      );
    }
    if (users.has(match[1]!)) throw new RangeError(`${source} line ${index + 1}: user "${match[1]}" is given twice`);
    users.set(match[1]!, { salt: Buffer.from(match[2]!, 'hex'), key: Buffer.from(match[3]!, 'hex') });
  }
  if (users.size === 0) throw new RangeError(`${source} names no user`);
  return users;
}

/** HTTP Basic against `users` (from `readUsers`). */
export function basicAuthenticator(users: ReadonlyMap<string, { salt: Buffer; key: Buffer }>): Authenticator {
  const remembered = new Map<string, number>();
  return {
    challenge: 'Basic realm="thresher", charset="UTF-8"',
    async authenticate(req) {
      const header = req.headers.authorization ?? '';
      const at = Date.now();
      if ((remembered.get(header) ?? 0) > at) return;
      const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
      if (!match) throw refused('this server asks for HTTP Basic credentials (Authorization: Basic …)');
      const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = users.get(decoded.slice(0, Math.max(colon, 0)));
      // A user nobody has still costs a hash, so the answer's time does not tell names apart.
      const salt = user?.salt ?? Buffer.alloc(16);
      const key = await scrypt(decoded.slice(colon + 1), salt, KEY_BYTES);
      if (colon < 0 || user === undefined || !timingSafeEqual(key, user.key)) {
        throw refused('the user name or password is not right');
      }
      if (remembered.size >= REMEMBERED) remembered.clear();
      remembered.set(header, at + REMEMBER_MS);
    },
  };
}

export interface BearerOptions {
  /** The issuer tokens must name (`iss`); its JWKS is found by OpenID discovery unless `jwksUrl` is given. */
  issuer: string;
  /** The audience tokens must name (`aud`), when given. */
  audience?: string;
  jwksUrl?: string;
}

/** Bearer JWTs signed by a key of the issuer's JWKS, naming the issuer (and the audience, when given), unexpired. */
export async function bearerAuthenticator(options: BearerOptions): Promise<Authenticator> {
  const jwksUrl = options.jwksUrl ?? (await discoverJwks(options.issuer));
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  return {
    challenge: 'Bearer',
    async authenticate(req) {
      const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
      if (!match) throw refused('this server asks for a bearer token (Authorization: Bearer <JWT>)');
      try {
        await jwtVerify(match[1]!, keys, {
          issuer: options.issuer,
          ...(options.audience === undefined ? {} : { audience: options.audience }),
          clockTolerance: 5,
        });
      } catch (error) {
        if (error instanceof errors.JOSEError) throw refused(`the bearer token is not accepted: ${error.message}`);
        throw error;
      }
    },
  };
}

/** The issuer's `jwks_uri`, from its OpenID configuration. */
async function discoverJwks(issuer: string): Promise<string> {
  const where = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let found: unknown;
  try {
    const response = await fetch(where);
    if (!response.ok) throw new Error(`it answered ${response.status}`);
    found = ((await response.json()) as { jwks_uri?: unknown }).jwks_uri;
  } catch (error) {
    throw new RangeError(`the issuer's OpenID configuration (${where}) could not be read: ${(error as Error).message}`);
  }
  if (typeof found !== 'string') throw new RangeError(`the issuer's OpenID configuration (${where}) has no jwks_uri`);
  return found;
}
