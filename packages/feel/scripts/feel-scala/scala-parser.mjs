// A parser for the expression-and-statement subset of Scala that feel-scala's test bodies use: calls, infix
// operators (`x should returnResult(1)`), blocks, lambdas, `val` bindings, literals. Anything else (if/for/match,
// anonymous classes, …) raises ScalaParseError; a block statement that fails to parse is kept as `unparsed` with
// its token range, so the caller can still count the evaluations inside it as skipped instead of losing them.

/** A parse failure: the construct is outside the subset; the statement is kept as `unparsed`. */
export class ScalaParseError extends Error {
  constructor(message, line) {
    super(`line ${line}: ${message}`);
    this.name = 'ScalaParseError';
    this.line = line;
  }
}

const UNSUPPORTED_KEYWORDS = new Set(['if', 'for', 'try', 'while', 'do', 'throw', 'return', 'match', 'case']);
const SKIPPED_DECLARATIONS = new Set(['def', 'class', 'object', 'trait', 'type', 'import', 'package']);
const MODIFIERS = new Set(['private', 'protected', 'override', 'implicit', 'final', 'sealed', 'abstract', 'lazy']);

/** Scala's operator precedence, from an operator's first character (letters lowest). */
function precedence(op) {
  const c = op[0];
  if (/[A-Za-z_]/.test(c)) return 0;
  if (c === '|') return 1;
  if (c === '^') return 2;
  if (c === '&') return 3;
  if (c === '=' || c === '!') return 4;
  if (c === '<' || c === '>') return 5;
  if (c === ':') return 6;
  if (c === '+' || c === '-') return 7;
  if (c === '*' || c === '/' || c === '%') return 8;
  return 9;
}

class Parser {
  constructor(tokens) {
    this.tokens = tokens;
    this.pos = 0;
  }

  peek(offset = 0) {
    return this.tokens[this.pos + offset] ?? { type: 'eof', value: '<eof>', line: this.lastLine() };
  }

  lastLine() {
    return this.tokens.length > 0 ? this.tokens[this.tokens.length - 1].line : 0;
  }

  next() {
    const token = this.peek();
    this.pos++;
    return token;
  }

  is(value, type) {
    const token = this.peek();
    return token.value === value && (type === undefined || token.type === type);
  }

  expect(value) {
    const token = this.next();
    if (token.value !== value || token.type === 'str') {
      throw new ScalaParseError(
        `expected ${JSON.stringify(value)} but found ${JSON.stringify(token.value)}`,
        token.line,
      );
    }
    return token;
  }

  fail(message) {
    throw new ScalaParseError(message, this.peek().line);
  }

  /** Skips one statement's tokens (balanced brackets) up to a separator or the enclosing block's end. */
  skipStatement() {
    let depth = 0;
    while (this.peek().type !== 'eof') {
      const token = this.peek();
      if (depth === 0 && (token.type === 'nl' || token.value === ';' || token.value === '}')) {
        if (token.type !== 'str') return;
      }
      if (token.type === 'punct') {
        if ('([{'.includes(token.value)) depth++;
        else if (')]}'.includes(token.value)) depth--;
      }
      this.pos++;
    }
  }

  /** Statements up to the closing `}` (not consumed), each parsed or kept as `unparsed` with its token range. */
  blockStatements() {
    const stmts = [];
    for (;;) {
      while (this.peek().type === 'nl' || this.is(';', 'punct')) this.pos++;
      if (this.is('}', 'punct') || this.peek().type === 'eof') return stmts;
      const start = this.pos;
      const line = this.peek().line;
      try {
        const stmt = this.statement();
        const end = this.peek();
        if (!(end.type === 'nl' || end.value === ';' || end.value === '}' || end.type === 'eof')) {
          this.fail(`unexpected ${JSON.stringify(end.value)} after a statement`);
        }
        stmts.push({ ...stmt, line, start, end: this.pos });
      } catch (error) {
        if (!(error instanceof ScalaParseError)) throw error;
        this.pos = start;
        this.skipStatement();
        stmts.push({ t: 'unparsed', reason: error.message, names: this.valNames(start), line, start, end: this.pos });
      }
    }
  }

  /** The name a statement starting at `start` declares with `val`/`var`, so an unparsed one can still shadow. */
  valNames(start) {
    let k = start;
    while (this.tokens[k]?.type === 'kw' && MODIFIERS.has(this.tokens[k].value)) k++;
    const keyword = this.tokens[k];
    const name = this.tokens[k + 1];
    if (keyword?.type === 'kw' && ['val', 'var', 'def'].includes(keyword.value) && name?.type === 'id')
      return [name.value];
    return [];
  }

  statement() {
    while (this.peek().type === 'kw' && MODIFIERS.has(this.peek().value)) this.pos++;
    const token = this.peek();
    if (token.type === 'kw' && (token.value === 'val' || token.value === 'var')) {
      this.pos++;
      let names;
      if (this.is('(', 'punct')) {
        this.pos++;
        names = [];
        while (!this.is(')', 'punct')) {
          names.push(this.next().value);
          if (this.is(',', 'punct')) this.pos++;
        }
        this.pos++;
      } else {
        const name = this.next();
        if (name.type !== 'id') throw new ScalaParseError(`unsupported val pattern ${name.value}`, name.line);
        names = [name.value];
      }
      if (this.is(':', 'punct')) {
        this.pos++;
        this.skipType();
      }
      this.expect('=');
      return { t: 'val', names, expr: this.expr() };
    }
    if (token.type === 'kw' && SKIPPED_DECLARATIONS.has(token.value)) {
      const name = this.peek(1).value;
      this.skipStatement();
      return { t: 'declaration', keyword: token.value, name };
    }
    return { t: 'expr', expr: this.expr() };
  }

  /** Skips a type (after `:` or inside `[…]`), stopping before `=`, `,`, a closing bracket or a line break. */
  skipType() {
    let depth = 0;
    const start = this.pos;
    while (this.peek().type !== 'eof') {
      const token = this.peek();
      if (depth === 0) {
        if (token.type === 'nl' || (token.type === 'punct' && ['=', ',', ')', ']', '}', ';'].includes(token.value))) {
          break;
        }
      }
      if (token.type === 'punct' && '([{'.includes(token.value)) depth++;
      if (token.type === 'punct' && ')]}'.includes(token.value)) depth--;
      this.pos++;
    }
    return this.tokens
      .slice(start, this.pos)
      .map((t) => t.value)
      .join(' ');
  }

  /** Whether the tokens at the cursor start a lambda: `x =>`, `_ =>`, `(a, b) =>` or `(a: T) =>`. */
  atLambda() {
    const token = this.peek();
    if ((token.type === 'id' || token.value === '_') && this.peek(1).value === '=>') return true;
    if (!this.is('(', 'punct')) return false;
    let depth = 0;
    for (let k = this.pos; k < this.tokens.length; k++) {
      const t = this.tokens[k];
      if (t.type !== 'punct') continue;
      if (t.value === '(') depth++;
      if (t.value === ')') {
        depth--;
        if (depth === 0) return this.tokens[k + 1]?.value === '=>';
      }
    }
    return false;
  }

  lambdaParams() {
    const params = [];
    if (this.is('(', 'punct')) {
      this.pos++;
      while (!this.is(')', 'punct')) {
        params.push(this.next().value);
        if (this.is(':', 'punct')) {
          this.pos++;
          this.skipType();
        }
        if (this.is(',', 'punct')) this.pos++;
      }
      this.pos++;
    } else {
      params.push(this.next().value);
    }
    this.expect('=>');
    return params;
  }

  expr() {
    if (this.atLambda()) {
      const line = this.peek().line;
      const params = this.lambdaParams();
      return { t: 'lambda', params, body: this.expr(), line };
    }
    const token = this.peek();
    if (token.type === 'kw' && UNSUPPORTED_KEYWORDS.has(token.value)) this.fail(`unsupported \`${token.value}\``);
    const e = this.infix(0);
    if (this.is('=', 'punct')) this.fail('unsupported assignment');
    if (this.is('match', 'kw')) this.fail('unsupported `match`');
    return e;
  }

  /** Whether the cursor can start an operand (so an identifier before it is infix, not postfix). */
  atOperandStart() {
    const token = this.peek();
    if (token.type === 'nl' || token.type === 'eof') return false;
    if (token.type === 'punct') return ['(', '{', '_'].includes(token.value);
    if (token.type === 'kw') return ['true', 'false', 'null', 'new', 'this'].includes(token.value);
    return true;
  }

  infix(minPrec) {
    let left = this.prefix();
    for (;;) {
      const token = this.peek();
      if (token.type !== 'op' && token.type !== 'id') return left;
      const prec = precedence(token.value);
      if (prec < minPrec) return left;
      this.pos++;
      if (!this.atOperandStart()) {
        left = { t: 'postfix', op: token.value, e: left, line: token.line };
        continue;
      }
      const rightAssoc = token.value.endsWith(':');
      const right = this.infix(rightAssoc ? prec : prec + 1);
      left = { t: 'infix', op: token.value, l: left, r: right, line: token.line };
    }
  }

  prefix() {
    const token = this.peek();
    if (token.type === 'op' && ['-', '+', '!', '~'].includes(token.value)) {
      this.pos++;
      return { t: 'prefix', op: token.value, e: this.simple(), line: token.line };
    }
    return this.simple();
  }

  simple() {
    const token = this.next();
    let e;
    switch (token.type) {
      case 'str':
        e = { t: 'str', v: token.value, line: token.line };
        break;
      case 'interp':
        e = { t: 'interp', ...token.value, line: token.line };
        break;
      case 'char':
        e = { t: 'char', v: token.value, line: token.line };
        break;
      case 'num':
        e = { t: 'num', text: token.value, line: token.line };
        break;
      case 'id':
        e = { t: 'id', name: token.value, line: token.line };
        break;
      case 'kw':
        if (['true', 'false'].includes(token.value)) e = { t: 'bool', v: token.value === 'true', line: token.line };
        else if (token.value === 'null') e = { t: 'null', line: token.line };
        else if (token.value === 'this') e = { t: 'id', name: 'this', line: token.line };
        else if (token.value === 'new') e = this.newExpr(token);
        else throw new ScalaParseError(`unsupported \`${token.value}\``, token.line);
        break;
      case 'punct':
        if (token.value === '(') e = this.parens(token);
        else if (token.value === '{') e = this.block(token);
        else if (token.value === '_') e = { t: 'wild', line: token.line };
        else throw new ScalaParseError(`unexpected ${JSON.stringify(token.value)}`, token.line);
        break;
      default:
        throw new ScalaParseError(`unexpected ${JSON.stringify(token.value)}`, token.line);
    }
    return this.postfixes(e);
  }

  postfixes(e) {
    for (;;) {
      const token = this.peek();
      if (token.type !== 'punct') return e;
      if (token.value === '.') {
        this.pos++;
        const name = this.next();
        if (name.type !== 'id' && name.type !== 'kw') throw new ScalaParseError('expected a member name', name.line);
        e = { t: 'sel', obj: e, name: name.value, line: name.line };
      } else if (token.value === '[') {
        this.pos++;
        const types = this.skipType();
        this.expect(']');
        e = { t: 'tapp', fn: e, types, line: token.line };
      } else if (token.value === '(') {
        this.pos++;
        e = { t: 'app', fn: e, args: this.args(), line: token.line };
      } else if (token.value === '{') {
        this.pos++;
        e = { t: 'app', fn: e, args: [{ value: this.block(token) }], line: token.line };
      } else {
        return e;
      }
    }
  }

  /** Arguments after `(` up to and including `)`: positional or named (`name = value`), maybe ascribed. */
  args() {
    const args = [];
    while (!this.is(')', 'punct')) {
      let name;
      if (this.peek().type === 'id' && this.peek(1).value === '=' && this.peek(1).type === 'punct') {
        name = this.next().value;
        this.pos++;
      }
      const value = this.expr();
      if (this.is(':', 'punct')) {
        this.pos++;
        const type = this.skipType();
        args.push({ name, value: { t: 'ascribe', e: value, type, line: value.line } });
      } else {
        args.push({ name, value });
      }
      if (this.is(',', 'punct')) this.pos++;
      else if (!this.is(')', 'punct')) this.fail(`expected , or ) in an argument list, found ${this.peek().value}`);
    }
    this.pos++;
    return args;
  }

  parens(open) {
    if (this.is(')', 'punct')) {
      this.pos++;
      return { t: 'unit', line: open.line };
    }
    const items = [];
    for (;;) {
      let item = this.expr();
      if (this.is(':', 'punct')) {
        this.pos++;
        item = { t: 'ascribe', e: item, type: this.skipType(), line: item.line };
      }
      items.push(item);
      if (this.is(',', 'punct')) {
        this.pos++;
        continue;
      }
      this.expect(')');
      break;
    }
    return items.length === 1 ? { t: 'paren', e: items[0], line: open.line } : { t: 'tuple', items, line: open.line };
  }

  /** A block after `{`: statements, or a lambda whose body is the rest of the block (`{ (a, b) => … }`). */
  block(open) {
    while (this.peek().type === 'nl') this.pos++;
    if (this.is('case', 'kw')) this.fail('unsupported pattern-matching block');
    if (this.atLambda()) {
      const params = this.lambdaParams();
      const stmts = this.blockStatements();
      this.expect('}');
      return { t: 'lambda', params, body: { t: 'block', stmts, line: open.line }, line: open.line };
    }
    const stmts = this.blockStatements();
    this.expect('}');
    return { t: 'block', stmts, line: open.line };
  }

  newExpr(token) {
    let cls = this.next().value;
    while (this.is('.', 'punct')) {
      this.pos++;
      cls += `.${this.next().value}`;
    }
    if (this.is('[', 'punct')) {
      this.pos++;
      this.skipType();
      this.expect(']');
    }
    const argLists = [];
    while (this.is('(', 'punct')) {
      this.pos++;
      argLists.push(this.args());
    }
    if (this.is('{', 'punct')) this.fail('unsupported anonymous class');
    return { t: 'new', cls, args: argLists[0] ?? [], line: token.line };
  }
}

/**
 * Parses a Scala source's tokens into its class definitions: `{ name, line, stmts }` per class, the statements of
 * its body parsed by the subset grammar (unparsable ones kept as `unparsed`).
 * @param {Array<{type: string, value: unknown, line: number}>} tokens
 */
export function parseClasses(tokens) {
  const classes = [];
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    if (token.type === 'punct' && token.value === '{') depth++;
    if (token.type === 'punct' && token.value === '}') depth--;
    if (depth !== 0 || token.type !== 'kw' || token.value !== 'class') continue;
    // The template body is the first `{` at this nesting level after the class header.
    let bodyAt = k + 1;
    let nested = 0;
    while (bodyAt < tokens.length) {
      const t = tokens[bodyAt];
      if (t.type === 'punct' && (t.value === '(' || t.value === '[')) nested++;
      if (t.type === 'punct' && (t.value === ')' || t.value === ']')) nested--;
      if (nested === 0 && t.type === 'punct' && t.value === '{') break;
      bodyAt++;
    }
    const parser = new Parser(tokens);
    parser.pos = bodyAt + 1;
    const stmts = parser.blockStatements();
    parser.expect('}');
    classes.push({ name: tokens[k + 1].value, line: token.line, stmts, tokens });
    k = parser.pos - 1;
  }
  return classes;
}
