// A lexer for the subset of Scala 2.13 that feel-scala's test suites are written in. It only has to be right
// about literals (their exact values are the test data) and about where statements end; everything else is
// passed on as identifiers, operators and punctuation for the parser to accept or refuse.

const KEYWORDS = new Set([
  'abstract',
  'case',
  'catch',
  'class',
  'def',
  'do',
  'else',
  'extends',
  'false',
  'final',
  'finally',
  'for',
  'forSome',
  'if',
  'implicit',
  'import',
  'lazy',
  'match',
  'new',
  'null',
  'object',
  'override',
  'package',
  'private',
  'protected',
  'return',
  'sealed',
  'super',
  'this',
  'throw',
  'trait',
  'try',
  'true',
  'type',
  'val',
  'var',
  'while',
  'with',
  'yield',
]);

const RESERVED_OPERATORS = new Set(['=', '=>', '<-', ':', '#', '@', '<:', '>:', '<%']);
const OPERATOR_CHARS = new Set('!#%&*+-/:<=>?@\\^|~');

/** Words after which a line break does not end a statement (Scala's "cannot end a statement" tokens). */
const CANNOT_END = new Set(['(', '[', '{', ',', '.', '=', '=>', '<-', ':', 'with', 'extends', 'new', 'else', 'yield']);
/** Tokens a statement cannot start with, so a line break before them continues the previous line. */
const CANNOT_START = new Set([
  ')',
  ']',
  '}',
  ',',
  '.',
  '=',
  '=>',
  '<-',
  ':',
  'catch',
  'else',
  'extends',
  'finally',
  'match',
  'with',
  'yield',
]);

/** A lexing failure: the source uses something this lexer does not know. */
export class ScalaLexError extends Error {
  constructor(message, line) {
    super(`line ${line}: ${message}`);
    this.name = 'ScalaLexError';
    this.line = line;
  }
}

const SIMPLE_ESCAPES = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', "'": "'", '\\': '\\' };

/** Resolves Scala's escapes in a `"…"` or `'…'` literal body. */
function unescapeLiteral(body, line) {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = body[i + 1];
    if (next in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[next];
      i++;
    } else if (next === 'u') {
      let j = i + 1;
      while (body[j] === 'u') j++;
      const hex = body.slice(j, j + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex))
        throw new ScalaLexError(`bad unicode escape \\${body.slice(i + 1, j + 4)}`, line);
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i = j + 3;
    } else if (/[0-7]/.test(next)) {
      throw new ScalaLexError('octal escapes are not supported', line);
    } else {
      throw new ScalaLexError(`unknown escape \\${next}`, line);
    }
  }
  return out;
}

/**
 * Scala 2.13 still resolves `\uXXXX` in triple-quoted strings (deprecated, gone in Scala 3) and nothing else;
 * feel-scala's tests rely on it (e.g. a context key written as `\uD83D\uDC0E`).
 */
function unicodeEscapes(body) {
  return body.replace(/\\u+([0-9a-fA-F]{4})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * Splits the parts of an interpolated string (`s"a $x ${y} b"`) into text and references. The text parts stay raw
 * (escapes are resolved later, by the interpolator's rules).
 */
function splitInterpolation(body, line) {
  const parts = [];
  let text = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '$') {
      text += c;
      continue;
    }
    const next = body[i + 1];
    if (next === '$') {
      text += '$';
      i++;
      continue;
    }
    parts.push({ text });
    text = '';
    if (next === '{') {
      const end = body.indexOf('}', i);
      if (end < 0) throw new ScalaLexError('unterminated ${ in an interpolated string', line);
      parts.push({ ref: body.slice(i + 2, end).trim() });
      i = end;
    } else {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(body.slice(i + 1));
      if (!match) throw new ScalaLexError('a $ in an interpolated string is not followed by a name', line);
      parts.push({ ref: match[0] });
      i += match[0].length;
    }
  }
  parts.push({ text });
  return parts;
}

/**
 * Tokenizes Scala source. Tokens: `{ type, value, line }` with type one of `str` (value: the string), `interp`
 * (value: `{ prefix, raw, parts }`), `char`, `num` (value: the literal text), `id`, `op`, `kw`, `punct`, and `nl`
 * where a line break separates two statements.
 * @param {string} source
 */
export function lex(source) {
  const tokens = [];
  let i = 0;
  let line = 1;
  const push = (type, value, startLine, extra = {}) => tokens.push({ type, value, line: startLine, ...extra });
  let sawNewline = false;

  while (i < source.length) {
    const c = source[i];
    if (c === '\n') {
      line++;
      i++;
      sawNewline = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      let depth = 0;
      do {
        if (source.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (source.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else {
          if (source[i] === '\n') line++;
          i++;
        }
      } while (depth > 0 && i < source.length);
      continue;
    }
    const startLine = line;
    const newlineBefore = sawNewline;
    sawNewline = false;
    const mark = { newlineBefore };

    // Strings, plain or interpolated, single- or triple-quoted.
    const interp = /^([A-Za-z]+)"/.exec(source.slice(i, i + 12));
    if (c === '"' || interp) {
      const prefix = interp ? interp[1] : '';
      let j = i + prefix.length;
      let body;
      let triple = false;
      if (source.startsWith('"""', j)) {
        triple = true;
        let end = source.indexOf('"""', j + 3);
        if (end < 0) throw new ScalaLexError('unterminated """ string', startLine);
        // A run of more than three quotes ends with the last three; the extra ones belong to the string.
        while (source[end + 3] === '"') end++;
        body = source.slice(j + 3, end);
        j = end + 3;
      } else {
        let k = j + 1;
        while (k < source.length && source[k] !== '"') {
          if (source[k] === '\\') k++;
          if (source[k] === '\n') throw new ScalaLexError('line break in a string literal', startLine);
          k++;
        }
        body = source.slice(j + 1, k);
        j = k + 1;
      }
      for (const ch of body) if (ch === '\n') line++;
      if (prefix === '') {
        push('str', triple ? unicodeEscapes(body) : unescapeLiteral(body, startLine), startLine, mark);
      } else {
        push('interp', { prefix, triple, raw: body, parts: splitInterpolation(body, startLine) }, startLine, mark);
      }
      i = j;
      continue;
    }
    // Character literals ('a', '\n', '\u0009'); a quote followed by a name is an old-style symbol, not supported.
    if (c === "'") {
      const match = /^'(\\u+[0-9a-fA-F]{4}|\\.|[^\\'])'/.exec(source.slice(i, i + 12));
      if (!match) throw new ScalaLexError('unsupported quote (symbol literal?)', startLine);
      push('char', unescapeLiteral(match[1], startLine), startLine, mark);
      i += match[0].length;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const match = /^(0[xX][0-9a-fA-F_]+[lL]?|(?:[0-9][0-9_]*)?(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?[lLdDfF]?)/.exec(
        source.slice(i),
      );
      let text = match[0];
      // `1.toString` and `1 .. 2` are not decimals: a dot must be followed by a digit to belong to the number.
      if (text.endsWith('.')) text = text.slice(0, -1);
      push('num', text, startLine, mark);
      i += text.length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const match = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(source.slice(i));
      const word = match[0];
      push(KEYWORDS.has(word) ? 'kw' : word === '_' ? 'punct' : 'id', word, startLine, mark);
      i += word.length;
      continue;
    }
    if (c === '`') {
      const end = source.indexOf('`', i + 1);
      push('id', source.slice(i + 1, end), startLine, mark);
      i = end + 1;
      continue;
    }
    if ('()[]{},;.'.includes(c)) {
      push('punct', c, startLine, mark);
      i++;
      continue;
    }
    if (OPERATOR_CHARS.has(c)) {
      let j = i;
      while (j < source.length && OPERATOR_CHARS.has(source[j])) {
        if (source.startsWith('//', j) || source.startsWith('/*', j)) break;
        j++;
      }
      const op = source.slice(i, j);
      push(RESERVED_OPERATORS.has(op) ? 'punct' : 'op', op, startLine, mark);
      i = j;
      continue;
    }
    throw new ScalaLexError(`unexpected character ${JSON.stringify(c)}`, startLine);
  }
  return insertStatementBreaks(tokens);
}

/**
 * Turns the line breaks between tokens into `nl` tokens where Scala would infer a semicolon: inside braces (not
 * parentheses or brackets), after a token that can end a statement and before one that can start one.
 */
function insertStatementBreaks(tokens) {
  const out = [];
  const regions = ['{'];
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    const previous = out[out.length - 1];
    if (
      token.newlineBefore &&
      previous &&
      previous.type !== 'nl' &&
      regions[regions.length - 1] === '{' &&
      !CANNOT_END.has(previous.value) &&
      previous.type !== 'op' &&
      !CANNOT_START.has(token.value)
    ) {
      out.push({ type: 'nl', value: '\n', line: token.line });
    }
    out.push(token);
    if (token.type === 'punct') {
      if (token.value === '(' || token.value === '[' || token.value === '{') regions.push(token.value);
      else if (token.value === ')' || token.value === ']' || token.value === '}') regions.pop();
    }
    // `case … =>` inside braces: the arrow ends a case head; treat it like any other token.
  }
  return out;
}
