import type { IncomingMessage, ServerResponse } from 'node:http';
import { Problem, ProblemKind } from './problem.js';

/** What an operation answers: a status, and a JSON body unless it has none (204), or a text (or bytes) of a media type. */
export interface Reply {
  status: number;
  body?: unknown;
  text?: { type: string; content: string | Buffer };
}

/** Send an operation's reply. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if (reply.text === undefined) return sendJson(res, reply.status, reply.body);
  const { type, content } = reply.text;
  res.writeHead(reply.status, { 'content-type': type, 'content-length': Buffer.byteLength(content) }).end(content);
}

/**
 * The request's body as JSON; `undefined` when it has none. A body over `limit` bytes is a 413 (read no further),
 * one that is not `application/json` a 415, one that does not parse a 400: each a problem.
 */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const bytes = await readBytes(req, limit);
  if (bytes.length === 0) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new Problem(ProblemKind.UnsupportedMediaType, `the body must be application/json, not "${type || 'none'}"`);
  }
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Problem(ProblemKind.InvalidArgument, `the body is not JSON: ${(error as Error).message}`);
  }
}

/** The request's body, refused with a 413 once it passes `limit` bytes. */
export async function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

function tooLarge(limit: number): Problem {
  return new Problem(ProblemKind.PayloadTooLarge, `the body is larger than ${limit} bytes`);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

/**
 * Whether a browser sent this request from another site's page: its `Sec-Fetch-Site`, else its `Origin`, says so.
 * A client that is no browser sends neither, and is not one.
 */
export function fromAnotherSite(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
}
