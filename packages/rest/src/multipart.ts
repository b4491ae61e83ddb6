import { Problem, ProblemKind } from './problem.js';

/** One part of a `multipart/form-data` body (RFC 7578): its field name, its file name if any, its bytes. */
export interface FormPart {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  /** Its headers by lower-case name. */
  headers: ReadonlyMap<string, string>;
  data: Buffer;
}

/**
 * The parts of a `multipart/form-data` body read whole (the handler bounds its size). A body that is not one,
 * or does not hold together (no boundary, a part without a name, no closing delimiter), is a 400 saying so.
 */
export function readMultipart(contentType: string | undefined, body: Buffer): FormPart[] {
  const boundary = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType ?? '');
  if (boundary === null) {
    throw new Problem(
      ProblemKind.UnsupportedMediaType,
      `the body must be multipart/form-data with a boundary, not "${contentType ?? 'none'}"`,
    );
  }
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  if (at < 0) throw broken('it holds no part');
  for (;;) {
    at += delimiter.length;
    if (body.subarray(at, at + 2).toString('latin1') === '--') return parts;
    if (body.subarray(at, at + 2).toString('latin1') !== '\r\n')
      throw broken('a delimiter is not followed by a line end');
    const headersEnd = body.indexOf('\r\n\r\n', at + 2);
    if (headersEnd < 0) throw broken(`part ${parts.length + 1} has no end to its headers`);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headersEnd + 4);
    if (next < 0) throw broken(`part ${parts.length + 1} has no closing delimiter`);
    parts.push(
      partOf(body.subarray(at + 2, headersEnd).toString('utf8'), body.subarray(headersEnd + 4, next), parts.length + 1),
    );
    at = next + 2;
  }
}

function partOf(headerText: string, data: Buffer, index: number): FormPart {
  const headers = new Map<string, string>();
  for (const line of headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition') ?? '';
  const name = parameter(disposition, 'name');
  if (!/^form-data\b/i.test(disposition) || name === undefined) {
    throw broken(`part ${index} has no Content-Disposition: form-data with a name`);
  }
  return {
    name,
    filename: parameter(disposition, 'filename'),
    contentType: headers.get('content-type'),
    headers,
    data,
  };
}

/** A parameter of a header value, quoted or not (`name="resources"`). */
function parameter(header: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(header);
  if (match === null) return undefined;
  if (match[1] === undefined) return match[2];
  // Browsers and undici escape a quote and line breaks in a quoted name as the HTML spec says (%22, %0A, %0D).
  return match[1].replace(/\\(.)/g, '$1').replace(/%22/g, '"').replace(/%0A/gi, '\n').replace(/%0D/gi, '\r');
}

function broken(why: string): Problem {
  return new Problem(ProblemKind.InvalidArgument, `the multipart body does not hold together: ${why}`);
}
