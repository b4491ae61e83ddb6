/**
 * Who may see the view and who may act through it: an access token (required off loopback) checked in
 * constant time on every request, and per-page action tokens with an origin check on every POST.
 *
 * @module
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'thresher_ui_token';

/** Equal-length digests compared in constant time, so neither a token's length nor its prefix leaks. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The cookies of a request by name (the first of each). */
export function cookies(req: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (!found.has(name)) {
      try {
        found.set(name, decodeURIComponent(part.slice(at + 1).trim()));
      } catch {
        // A cookie that is not percent-encoded text is not ours.
      }
    }
  }
  return found;
}

/** The access token a request carries: `Authorization: Bearer …`, else the view's cookie. */
export function presentedToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  return cookies(req).get(TOKEN_COOKIE);
}

/**
 * Action tokens: an HMAC of what a page acts on under a secret of this handler's, embedded in the page's
 * forms. A POST without the token of its target is refused, so another site cannot make a browser act.
 */
export class ActionTokens {
  readonly #secret = randomBytes(32);

  /** The token of the page about `subject` (an instance id). */
  issue(subject: string): string {
    return createHmac('sha256', this.#secret).update(`thresher-ui-action\0${subject}`).digest('base64url');
  }

  verify(subject: string, given: unknown): boolean {
    return typeof given === 'string' && sameSecret(given, this.issue(subject));
  }
}

/**
 * Whether a POST comes from a page of this view: its `Origin` names this host (or one `origins` allows), or,
 * where a browser sends no Origin, `Sec-Fetch-Site` says same-origin. A request with neither is refused.
 */
export function sameOrigin(req: IncomingMessage, origins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (origins.includes(origin)) return true;
    try {
      return new URL(origin).host === req.headers.host;
    } catch {
      return false;
    }
  }
  return req.headers['sec-fetch-site'] === 'same-origin';
}

/** Whether a host name binds only this machine's loopback interface. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}
