/**
 * What the compiler checks in the XML text itself, before or around bpmn-moddle: a DOCTYPE (refused:
 * no DTDs or entities in a model), the root element's namespace (named when it is not BPMN 2.0's), and
 * whitespace around `=` in attributes, which XML allows and bpmn-moddle's reader does not.
 *
 * @module
 */

/** The namespace of BPMN 2.0 models. */
export const BPMN_NAMESPACE = 'http://www.omg.org/spec/BPMN/20100524/MODEL';

/** The root element's tag as written, its namespace, and its offset in the text. */
export interface RootTag {
  name: string;
  namespace: string | undefined;
  offset: number;
}

/** Skips the prolog (declaration, comments, processing instructions, whitespace) from the start. */
function prologEnd(xml: string): number {
  let at = 0;
  for (;;) {
    while (at < xml.length && /\s|\uFEFF/.test(xml.charAt(at))) at += 1;
    const close = xml.startsWith('<?', at) ? '?>' : xml.startsWith('<!--', at) ? '-->' : null;
    if (!close) return at;
    const end = xml.indexOf(close, at);
    if (end < 0) return xml.length;
    at = end + close.length;
  }
}

/** The offset of a DOCTYPE declaration in the prolog, if there is one. */
export function doctypeAt(xml: string): number | undefined {
  const at = prologEnd(xml);
  return /^<!DOCTYPE/i.test(xml.slice(at, at + 9)) ? at : undefined;
}

/** The root element's start tag, when the text has one. */
export function rootTag(xml: string): RootTag | undefined {
  const at = prologEnd(xml);
  const match = /^<([\w.-]+(?::[\w.-]+)?)([^>]*)>/.exec(xml.slice(at, at + 65536));
  if (!match) return undefined;
  const name = match[1] ?? '';
  const prefix = name.includes(':') ? name.slice(0, name.indexOf(':')) : '';
  const declaration = prefix ? `xmlns:${prefix}` : 'xmlns';
  const namespace = new RegExp(`\\s${declaration}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(match[2] ?? '');
  return { name, namespace: namespace ? (namespace[1] ?? namespace[2]) : undefined, offset: at };
}

/** Markup whose text is never an attribute list, with how it ends. */
const UNTOUCHED: ReadonlyArray<readonly [string, string]> = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
  ['<!', '>'],
];

const NEEDS_SPACING_FIX = /[\w.-]\s+=\s*["']|[\w.-]=\s+["']/;

/**
 * Rewrites `name = "value"` inside tags as `name="value"`, moving the whitespace after the value so
 * every line keeps its number. Text, comments, CDATA and processing instructions are left alone.
 */
export function normalizeAttributeSpacing(xml: string): string {
  if (!NEEDS_SPACING_FIX.test(xml)) return xml;
  let out = '';
  let at = 0;
  while (at < xml.length) {
    const open = xml.indexOf('<', at);
    if (open < 0) break;
    out += xml.slice(at, open);
    const skip = UNTOUCHED.find(([start]) => xml.startsWith(start, open));
    const close = skip ? xml.indexOf(skip[1], open + skip[0].length) : -1;
    const end = skip ? (close < 0 ? -1 : close + skip[1].length) : tagEnd(xml, open);
    if (end <= open) {
      at = open;
      break;
    }
    const tag = xml.slice(open, end);
    out += skip ? tag : tag.replace(/([\w.:-]+)(\s*)=(\s*)("[^"]*"|'[^']*')/g, '$1=$4$2$3');
    at = end;
  }
  return out + xml.slice(at);
}

/** The offset after a start or end tag's `>`, skipping `>` inside quoted attribute values. */
function tagEnd(xml: string, open: number): number {
  let quote: string | null = null;
  for (let at = open + 1; at < xml.length; at += 1) {
    const char = xml.charAt(at);
    if (quote) {
      if (char === quote) quote = null;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '>') {
      return at + 1;
    }
  }
  return -1;
}
