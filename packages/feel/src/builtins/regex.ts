/**
 * Java regular expressions on JavaScript's engine: feel-scala compiles `matches`, `replace`, `split`
 * and `extract` patterns with `java.util.regex.Pattern` and maps the XPath flags `s m i x` to Java's
 * (other flag letters are ignored, as feel-scala ignores them). The translation covers what differs in
 * practice: `$` before a final line break, `\s` and `\v` as Java defines them, `\A \z \Z \h \R \Q…\E`,
 * POSIX classes (`\p{Alpha}`), possessive quantifiers and atomic groups (read as ordinary ones),
 * leading inline flags `(?i)`, comments mode (`x`). Java's replacement syntax (`$1`, `${name}`, `\$`)
 * and its match iteration are reproduced exactly.
 *
 * @module
 */

const POSIX: Record<string, string> = {
  Lower: 'a-z',
  Upper: 'A-Z',
  ASCII: '\\x00-\\x7F',
  Alpha: 'a-zA-Z',
  Digit: '0-9',
  Alnum: 'a-zA-Z0-9',
  Punct: '!-\\/:-@\\[-`{-~',
  Graph: '!-~',
  Print: ' -~',
  Blank: ' \\t',
  Cntrl: '\\x00-\\x1F\\x7F',
  XDigit: '0-9a-fA-F',
  Space: ' \\t\\n\\x0B\\f\\r',
};
const JAVA_SPACE = ' \\t\\n\\x0B\\f\\r';
const HORIZONTAL = ' \\t\\xA0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000';
const VERTICAL = '\\n\\x0B\\f\\r\\x85\\u2028\\u2029';
const LINE_END = '(?:\\r\\n|[\\n\\r\\u0085\\u2028\\u2029])';

/** The parts of a Java pattern JavaScript needs: its source and flags. */
interface Translated {
  source: string;
  flags: string;
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** Rewrites a Java pattern into a JavaScript one with the same meaning (see the module notes). */
function translate(pattern: string, javaFlags: string): Translated {
  let flags = '';
  let comments = javaFlags.includes('x');
  if (javaFlags.includes('s')) flags += 's';
  if (javaFlags.includes('m')) flags += 'm';
  if (javaFlags.includes('i')) flags += 'i';
  let rest = pattern;
  // Leading inline flags, `(?i)` or `(?im)`, apply to the whole pattern.
  const inline = /^\(\?([imsx]+)\)/.exec(rest);
  if (inline) {
    for (const flag of inline[1]!) {
      if (flag === 'x') comments = true;
      else if (!flags.includes(flag)) flags += flag;
    }
    rest = rest.slice(inline[0].length);
  }
  const multiline = flags.includes('m');
  let out = '';
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (comments && !inClass && /\s/.test(c)) continue;
    if (comments && !inClass && c === '#') {
      while (i < rest.length && rest[i] !== '\n') i++;
      continue;
    }
    if (c === '\\') {
      const next = rest[i + 1];
      if (next === undefined) throw new SyntaxError('Unexpected internal error');
      if (next === 'Q') {
        const end = rest.indexOf('\\E', i + 2);
        const literal = rest.slice(i + 2, end < 0 ? rest.length : end);
        out += inClass ? literal.replace(/[\\\]^-]/g, '\\$&') : escapeLiteral(literal);
        i = end < 0 ? rest.length : end + 1;
        continue;
      }
      i++;
      switch (next) {
        case 'A':
          out += '(?<![\\s\\S])';
          break;
        case 'z':
          out += '(?![\\s\\S])';
          break;
        case 'Z':
          out += `(?=${LINE_END}?(?![\\s\\S]))`;
          break;
        case 'h':
          out += inClass ? HORIZONTAL : `[${HORIZONTAL}]`;
          break;
        case 'H':
          out += `[^${HORIZONTAL}]`;
          break;
        case 'v':
          out += inClass ? VERTICAL : `[${VERTICAL}]`;
          break;
        case 'V':
          out += `[^${VERTICAL}]`;
          break;
        case 'R':
          out += `(?:\\r\\n|[${VERTICAL}])`;
          break;
        case 's':
          out += inClass ? JAVA_SPACE : `[${JAVA_SPACE}]`;
          break;
        case 'S':
          out += `[^${JAVA_SPACE}]`;
          break;
        case 'e':
          out += '\\x1B';
          break;
        case 'a':
          out += '\\x07';
          break;
        case 'p':
        case 'P': {
          const match = /^\{(\w+)\}/.exec(rest.slice(i + 1));
          const posix = match ? POSIX[match[1]!.replace(/^Is/, '')] : undefined;
          if (match && posix) {
            out += inClass ? posix : `[${next === 'P' ? '^' : ''}${posix}]`;
            i += match[0].length;
          } else {
            out += `\\${next}`;
          }
          break;
        }
        case 'x':
          if (rest[i + 1] === '{') {
            const end = rest.indexOf('}', i);
            out += `\\u{${rest.slice(i + 2, end)}}`;
            i = end;
          } else {
            out += '\\x';
          }
          break;
        default:
          out += `\\${next}`;
      }
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    switch (c) {
      case '[':
        inClass = true;
        out += c;
        if (rest[i + 1] === '^') out += rest[++i];
        // A `]` first in a class is a literal in Java.
        if (rest[i + 1] === ']') {
          out += '\\]';
          i++;
        }
        break;
      case '$':
        out += multiline ? '$' : `(?=${LINE_END}?(?![\\s\\S]))`;
        break;
      case '(':
        if (rest.startsWith('(?>', i)) {
          out += '(?:';
          i += 2;
        } else {
          out += c;
        }
        break;
      case '+':
        out += c;
        // Possessive `*+ ++ ?+ }+`: read as the plain quantifier.
        break;
      default:
        out += c;
    }
    if ((c === '*' || c === '+' || c === '?' || c === '}') && rest[i + 1] === '+' && !inClass) i++;
  }
  return { source: out, flags };
}

/**
 * Compiles a Java pattern with feel-scala's flag letters.
 *
 * @returns a global RegExp, or null when the pattern is invalid.
 */
export function javaRegex(pattern: string, javaFlags = ''): RegExp | null {
  let translated: Translated;
  try {
    translated = translate(pattern, javaFlags);
  } catch {
    return null;
  }
  for (const unicode of ['u', '']) {
    try {
      return new RegExp(translated.source, `g${translated.flags}${unicode}`);
    } catch {
      // Try the next mode: some Java escapes (`\-` outside a class) are valid only without `u`.
    }
  }
  return null;
}

/** Every match, as Java's `Matcher.find` iterates them (an empty match moves on by one). */
export function* matchesOf(regex: RegExp, input: string): Generator<RegExpExecArray> {
  regex.lastIndex = 0;
  for (;;) {
    const match = regex.exec(input);
    if (!match) return;
    yield match;
    if (match[0] === '') regex.lastIndex = match.index + 1;
    if (regex.lastIndex > input.length) return;
  }
}

/** Thrown for a replacement Java refuses (`$x`, a group that does not exist, a trailing `\`). */
export class ReplacementError extends Error {}

/** Java's `Matcher.appendReplacement` reading of a replacement string. */
function expand(replacement: string, match: RegExpExecArray): string {
  const groups = match.length - 1;
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!;
    if (c === '\\') {
      i++;
      if (i >= replacement.length) throw new ReplacementError('character to be escaped is missing');
      out += replacement[i];
    } else if (c === '$') {
      i++;
      if (i >= replacement.length) throw new ReplacementError('Illegal group reference: group index is missing');
      if (replacement[i] === '{') {
        const end = replacement.indexOf('}', i);
        if (end < 0) throw new ReplacementError("named capturing group is missing trailing '}'");
        const name = replacement.slice(i + 1, end);
        if (!match.groups || !(name in match.groups)) throw new ReplacementError(`No group with name {${name}}`);
        out += match.groups[name] ?? '';
        i = end;
      } else {
        let group = Number(replacement[i]);
        if (!/\d/.test(replacement[i]!)) throw new ReplacementError('Illegal group reference');
        // Java takes further digits while the group number stays valid.
        while (
          i + 1 < replacement.length &&
          /\d/.test(replacement[i + 1]!) &&
          group * 10 + Number(replacement[i + 1]) <= groups
        ) {
          group = group * 10 + Number(replacement[++i]);
        }
        if (group > groups) throw new ReplacementError(`No group ${group}`);
        out += match[group] ?? '';
      }
    } else {
      out += c;
    }
  }
  return out;
}

/** Java's `Matcher.replaceAll(replacement)`. @throws ReplacementError */
export function replaceAll(regex: RegExp, input: string, replacement: string): string {
  let out = '';
  let last = 0;
  for (const match of matchesOf(regex, input)) {
    out += input.slice(last, match.index) + expand(replacement, match);
    last = match.index + match[0].length;
  }
  return out + input.slice(last);
}

/** Java's `Pattern.split(input, -1)`: trailing empty strings kept, no leading empty one for an empty match. */
export function split(regex: RegExp, input: string): string[] {
  const parts: string[] = [];
  let index = 0;
  for (const match of matchesOf(regex, input)) {
    const end = match.index + match[0].length;
    if (index === 0 && match.index === 0 && end === 0) continue;
    parts.push(input.slice(index, match.index));
    index = end;
  }
  if (index === 0 && parts.length === 0) return [input];
  parts.push(input.slice(index));
  return parts;
}
