/**
 * String built-ins (feel-scala's `StringBuiltinFunctions`), Camunda's extensions included: `extract`,
 * `trim`, `uuid`, `to base64`, `from base64`, `is blank`. Positions are 1-based; lengths and positions
 * count UTF-16 code units, as Java's do.
 *
 * @module
 */
import { JavaException } from '../eval/failure.js';
import { fromInteger, intValue, isNumber } from '../number.js';
import type { FeelValue } from '../values.js';
import { type BuiltinTable, builtin, fail } from './define.js';
import { javaRegex, matchesOf, ReplacementError, replaceAll, split } from './regex.js';

/** feel-scala's `stringIndex`: 1-based from the start, or from the end when not positive. */
function stringIndex(text: string, index: number): number {
  return index > 0 ? index - 1 : text.length + index;
}

/** Java's `String.substring(begin, end)`, which throws outside the string (failing the evaluation). */
function javaSubstring(text: string, begin: number, end = text.length): string {
  if (begin < 0 || end > text.length || begin > end) {
    throw new JavaException(
      'java.lang.StringIndexOutOfBoundsException',
      `begin ${begin}, end ${end}, length ${text.length}`,
    );
  }
  return text.slice(begin, end);
}

/** Java's `String.trim()`: strips code units up to U+0020 at both ends. */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 32) start++;
  while (end > start && text.charCodeAt(end - 1) <= 32) end--;
  return text.slice(start, end);
}

/** Java's `Character.isWhitespace` (no non-breaking spaces), which `String.isBlank` uses. */
function isJavaWhitespace(code: number): boolean {
  if ((code >= 9 && code <= 13) || (code >= 28 && code <= 32)) return true;
  if (code === 0xa0 || code === 0x2007 || code === 0x202f) return false;
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** Java's strict Base64 decoder: the basic alphabet, padding optional but only at the end. */
function decodeBase64(text: string): string | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  if (text.length !== body.length && text.length % 4 !== 0) return null;
  return new TextDecoder('utf-8').decode(Buffer.from(body, 'base64'));
}

const withRegex = (pattern: string, flags: string, invalid: string, use: (regex: RegExp) => FeelValue) => {
  const regex = javaRegex(pattern, flags);
  if (!regex) return fail(invalid);
  try {
    return use(regex);
  } catch (error) {
    if (error instanceof ReplacementError) return fail(invalid);
    throw error;
  }
};

const replaceBody = (input: FeelValue, pattern: FeelValue, replacement: FeelValue, flags: FeelValue) => {
  if (
    typeof input !== 'string' ||
    typeof pattern !== 'string' ||
    typeof replacement !== 'string' ||
    typeof flags !== 'string'
  ) {
    return undefined;
  }
  return withRegex(pattern, flags, `Invalid pattern '${pattern}'`, (regex) => replaceAll(regex, input, replacement));
};

const matchesBody = (input: FeelValue, pattern: FeelValue, flags: FeelValue) => {
  if (typeof input !== 'string' || typeof pattern !== 'string' || typeof flags !== 'string') return undefined;
  return withRegex(pattern, flags, `Invalid pattern '${pattern}'`, (regex) => !matchesOf(regex, input).next().done);
};

const extract = (params: string[]) =>
  builtin(params, ([input, pattern]) => {
    if (typeof input !== 'string' || typeof pattern !== 'string') return undefined;
    return withRegex(pattern, '', `Invalid pattern '${pattern}'`, (regex) =>
      [...matchesOf(regex, input)].map((m) => m[0]),
    );
  });

/** The string built-ins. */
export const stringBuiltins: BuiltinTable = {
  substring: [
    builtin(['string', 'start position'], ([text, start]) => {
      if (typeof text !== 'string' || !isNumber(start)) return undefined;
      return javaSubstring(text, stringIndex(text, intValue(start)));
    }),
    builtin(['string', 'start position', 'length'], ([text, start, length]) => {
      if (typeof text !== 'string' || !isNumber(start) || !isNumber(length)) return undefined;
      const begin = stringIndex(text, intValue(start));
      return javaSubstring(text, begin, Math.min((begin + intValue(length)) | 0, text.length));
    }),
  ],
  'string length': [builtin(['string'], ([text]) => (typeof text === 'string' ? fromInteger(text.length) : undefined))],
  'upper case': [builtin(['string'], ([text]) => (typeof text === 'string' ? text.toUpperCase() : undefined))],
  'lower case': [builtin(['string'], ([text]) => (typeof text === 'string' ? text.toLowerCase() : undefined))],
  'substring before': [
    builtin(['string', 'match'], ([text, match]) => {
      if (typeof text !== 'string' || typeof match !== 'string') return undefined;
      const index = text.indexOf(match);
      return index > 0 ? text.slice(0, index) : '';
    }),
  ],
  'substring after': [
    builtin(['string', 'match'], ([text, match]) => {
      if (typeof text !== 'string' || typeof match !== 'string') return undefined;
      const index = text.indexOf(match);
      return index >= 0 ? text.slice(index + match.length) : '';
    }),
  ],
  replace: [
    builtin(['input', 'pattern', 'replacement'], ([input, pattern, replacement]) =>
      replaceBody(input!, pattern!, replacement!, ''),
    ),
    builtin(['input', 'pattern', 'replacement', 'flags'], ([input, pattern, replacement, flags]) =>
      replaceBody(input!, pattern!, replacement!, flags!),
    ),
  ],
  contains: [
    builtin(['string', 'match'], ([text, match]) =>
      typeof text === 'string' && typeof match === 'string' ? text.includes(match) : undefined,
    ),
  ],
  'starts with': [
    builtin(['string', 'match'], ([text, match]) =>
      typeof text === 'string' && typeof match === 'string' ? text.startsWith(match) : undefined,
    ),
  ],
  'ends with': [
    builtin(['string', 'match'], ([text, match]) =>
      typeof text === 'string' && typeof match === 'string' ? text.endsWith(match) : undefined,
    ),
  ],
  matches: [
    builtin(['input', 'pattern'], ([input, pattern]) => matchesBody(input!, pattern!, '')),
    builtin(['input', 'pattern', 'flags'], ([input, pattern, flags]) => matchesBody(input!, pattern!, flags!)),
  ],
  split: [
    builtin(['string', 'delimiter'], ([text, delimiter]) => {
      if (typeof text !== 'string' || typeof delimiter !== 'string') return undefined;
      return withRegex(delimiter, '', `Invalid pattern for delimiter '${delimiter}'`, (regex) => split(regex, text));
    }),
  ],
  // feel-scala names the first parameter `input`; Camunda documents it as `string`.
  extract: [extract(['input', 'pattern']), extract(['string', 'pattern'])],
  trim: [builtin(['string'], ([text]) => (typeof text === 'string' ? javaTrim(text) : undefined))],
  uuid: [builtin([], (_, state) => state.unsafeUuid())],
  'to base64': [
    builtin(['value'], ([value]) =>
      typeof value === 'string' ? Buffer.from(value, 'utf8').toString('base64') : undefined,
    ),
  ],
  'from base64': [
    builtin(['value'], ([value]) => {
      if (typeof value !== 'string') return undefined;
      return decodeBase64(value) ?? fail(`Invalid Base64 value '${value}'`);
    }),
  ],
  'is blank': [
    builtin(['string'], ([text]) => {
      if (typeof text !== 'string') return undefined;
      for (let i = 0; i < text.length; i++) if (!isJavaWhitespace(text.charCodeAt(i))) return false;
      return true;
    }),
  ],
};
