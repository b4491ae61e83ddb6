/**
 * The few places where lezer-feel's tokens differ from feel-scala's, bridged by rewriting the source
 * before lezer-feel reads it, character for character (positions stay valid):
 * - feel-scala's whitespace includes Unicode spaces lezer-feel does not skip (U+180E, U+200B, U+FEFF,
 *   U+0085, …): outside strings, names in backticks and comments they become a space (or a newline);
 * - feel-scala has list functions named `and` and `or`, keywords to lezer-feel: called at the start of
 *   an operand they are renamed to look-alike names the builder maps back;
 * - feel-scala reads `instance of function` without the `<…>` lezer-feel requires: renamed likewise;
 * - feel-scala takes a context key in backticks (`` {`a b`: 1} ``), lezer-feel does not: it becomes the
 *   same key in quotes, which both read as written.
 *
 * @module
 */

/** The stand-ins lezer-feel reads as names, and the FEEL names they stand for. */

/**
 * Names from outside that lezer-feel must know to read them with their spaces (a DMN model's input data,
 * decisions, knowledge models): each name maps to 1, or to the names inside it (a context's entries), so
 * `Applicant data.Monthly income` reads as a path. Changing the names can change the parse, so a caller
 * passes the names of the whole model at once.
 */
export type KnownNames = Readonly<Record<string, unknown>>;

export const STAND_INS: Readonly<Record<string, string>> = { ànd: 'and', ör: 'or', ƒunction: 'function' };

const NEWLINES = new Set([0x85, 0x2028, 0x2029]);
const SPACES = new Set([
  0x0b, 0x0c, 0xa0, 0x1680, 0x180e, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009,
  0x200a, 0x200b, 0x202f, 0x205f, 0x3000, 0xfeff,
]);
/** Words after which an operand starts (so a following `and(` is a call). */
const OPERAND_AFTER = new Set(['then', 'else', 'return', 'satisfies', 'if', 'in', 'and', 'or', 'not', 'between']);

/** The source as lezer-feel should read it (same length; see the module notes). */
export function prepareSource(source: string): string {
  const out = source.split('');
  let i = 0;
  let previous = ''; // the last significant token: a word, or a punctuation character
  const brackets: string[] = [];
  while (i < source.length) {
    const c = source[i]!;
    if (c === '"' || c === '`') {
      const end = closing(source, i, c);
      const isKey = c === '`' && brackets.at(-1) === '{' && (previous === '{' || previous === ',');
      const body = source.slice(i + 1, end - 1);
      if (isKey && /^\s*:/.test(source.slice(end)) && !/["\\]/.test(body)) {
        out[i] = '"';
        out[end - 1] = '"';
      }
      previous = c;
      i = end;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') brackets.push(c);
    if (c === ')' || c === ']' || c === '}') brackets.pop();
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
      continue;
    }
    const code = c.charCodeAt(0);
    if (NEWLINES.has(code)) {
      out[i++] = '\n';
      continue;
    }
    if (SPACES.has(code)) {
      out[i++] = ' ';
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i, i + 64))?.[0];
    if (word) {
      const after = source.slice(i + word.length).replace(/^[\s\u180e\u200b\ufeff]*/, '');
      const atOperand = previous === '' || /^[([,{:+\-*/<>=!]$/.test(previous) || OPERAND_AFTER.has(previous);
      if ((word === 'and' || word === 'or') && atOperand && after.startsWith('(')) {
        replace(out, i, word === 'and' ? 'ànd' : 'ör');
      } else if (word === 'function' && previous === 'of' && !after.startsWith('<')) {
        replace(out, i, 'ƒunction');
      }
      previous = word;
      i += word.length;
      continue;
    }
    if (!/\s/.test(c)) previous = c;
    i++;
  }
  return out.join('');
}

function replace(out: string[], at: number, text: string): void {
  for (let k = 0; k < text.length; k++) out[at + k] = text[k]!;
}

/** The index after a string or backtick name opened at `start`. */
function closing(source: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < source.length && source[i] !== quote) i += source[i] === '\\' ? 2 : 1;
  return Math.min(i + 1, source.length);
}

/** Whether only whitespace and comments follow `at`. */
export function isAtEnd(source: string, at: number): boolean {
  return (
    source
      .slice(at)
      .replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, '')
      .trim() === ''
  );
}

/**
 * feel-scala's escape handling of a string literal: `\n \r \t \b \f \' \"` (unless the backslash is
 * itself escaped), then `\\` to `\`; any other backslash stays as written.
 */
export function unescapeString(text: string): string {
  if (!text.includes('\\')) return text;
  return text
    .replace(/(?<!\\)\\n/g, '\n')
    .replace(/(?<!\\)\\r/g, '\r')
    .replace(/(?<!\\)\\t/g, '\t')
    .replace(/(?<!\\)\\b/g, '\b')
    .replace(/(?<!\\)\\f/g, '\f')
    .replace(/(?<!\\)\\'/g, "'")
    .replace(/(?<!\\)\\"/g, '"')
    .replace(/\\\\/g, '\\');
}
