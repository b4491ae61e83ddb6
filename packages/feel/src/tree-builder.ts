/**
 * lezer-feel's tree to feel-scala's syntax (`ast.ts`): one builder per parse, refusing what
 * feel-scala's parser refuses (a name with spaces outside a call, chained comparisons, `1e3`, …) and
 * reading what lezer-feel reads differently the way feel-scala does (`2 * 3 instance of number`,
 * `not(…)` in unary tests, a boolean that ends the unary tests).
 *
 * @module
 */
import type { SyntaxNode, Tree } from '@lezer/common';
import type { Arguments, ArithOp, Bound, CompareOp, Iterator, Node, Span, TemporalForm, TypeRef } from './ast.js';
import { FeelSyntaxError } from './errors.js';
import { parseNumber } from './number.js';
import { isAtEnd, type KnownNames, STAND_INS, unescapeString } from './source.js';
import {
  describe,
  KEYWORDS,
  liftInstanceOf,
  only,
  PUNCTUATION,
  RESERVED,
  SKIPPED,
  SPACED_PROPERTIES,
  SYMBOL_IN_NAME,
  TEMPORAL_FORMS,
} from './tree-words.js';

/** Turns one lezer tree (of `source`, which starts at `offset` in the whole text) into AST nodes. */
export class Builder {
  constructor(
    /** The text lezer-feel read (the source prepared by `prepareSource`). */
    protected readonly source: string,
    private readonly offset: number,
    /** The whole source as written, for messages. */
    private readonly original: string,
    /** lezer-feel's expression parser, to read again a name it took with operators in it. */
    private readonly parseAgain: (text: string) => Tree,
    /** Names with spaces the caller declared (DMN): lezer-feel reads them as one name, so no backticks. */
    private readonly known: KnownNames | undefined = undefined,
  ) {}

  error(reason: string, node: SyntaxNode | Span): FeelSyntaxError {
    return new FeelSyntaxError(reason, this.original, node.from + this.offset, node.to + this.offset);
  }

  span(node: SyntaxNode): Span {
    return { from: node.from + this.offset, to: node.to + this.offset };
  }

  text(node: SyntaxNode | Span): string {
    return this.source.slice(node.from, node.to);
  }

  /** The children that matter: no comments. */
  kids(node: SyntaxNode): SyntaxNode[] {
    const result: SyntaxNode[] = [];
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (!SKIPPED.has(child.name)) result.push(child);
    }
    return result;
  }

  /** The children that are not punctuation or keywords. */
  operands(node: SyntaxNode): SyntaxNode[] {
    return this.kids(node).filter((child) => !PUNCTUATION.has(child.name));
  }

  checkErrors(top: SyntaxNode): void {
    if (this.source.trim() === '') throw this.error('expression is empty', { from: 0, to: 0 });
    const cursor = top.cursor();
    do {
      if (cursor.type.isError) {
        const at = cursor.node;
        const found = this.text(at).trim();
        const reason = found === '' ? `incomplete ${describe(at.parent)}` : `unexpected "${found}"`;
        throw this.error(reason, at);
      }
    } while (cursor.next());
  }

  expression(node: SyntaxNode): Node {
    const span = this.span(node);
    switch (node.name) {
      case 'Expression':
      case 'PositiveUnaryTest':
      case 'FunctionBody':
        return this.expression(only(this.kids(node), node, this));
      case 'ParenthesizedExpression':
        return this.expression(only(this.operands(node), node, this));
      case 'NumericLiteral':
        return this.number(node, span);
      case 'StringLiteral':
        return { ...span, kind: 'const', value: unescapeString(this.text(node).slice(1, -1)) };
      case 'BooleanLiteral':
        return { ...span, kind: 'const', value: this.text(node) === 'true' };
      case 'null':
        return { ...span, kind: 'const', value: null };
      case '?':
        return { ...span, kind: 'input' };
      case 'DateTimeLiteral':
        return this.dateTimeLiteral(node, span);
      case 'List':
        return { ...span, kind: 'list', items: this.operands(node).map((item) => this.expression(item)) };
      case 'Context':
        return this.context(node, span);
      case 'VariableName':
        return this.variable(node, span);
      case 'PathExpression':
        return this.path(node, span);
      case 'FilterExpression': {
        const [list, filter] = this.operands(node);
        return { ...span, kind: 'filter', list: this.expression(list!), filter: this.expression(filter!) };
      }
      case 'FunctionInvocation':
        return this.invocation(node, span);
      case 'ForExpression':
      case 'QuantifiedExpression':
        return this.iteration(node, span);
      case 'IfExpression': {
        const [condition, then, otherwise] = this.kids(node).filter((kid) => !KEYWORDS.has(kid.name));
        return {
          ...span,
          kind: 'if',
          condition: this.expression(condition!),
          whenTrue: this.expression(then!),
          whenFalse: this.expression(otherwise!),
        };
      }
      case 'Disjunction':
      case 'Conjunction': {
        const [left, , right] = this.kids(node);
        const kind = node.name === 'Disjunction' ? 'or' : 'and';
        return { ...span, kind, left: this.expression(left!), right: this.expression(right!) };
      }
      case 'Comparison':
        return this.comparison(node, span);
      case 'ArithmeticExpression':
        return this.arithmetic(node, span);
      case 'InstanceOfExpression': {
        const kids = this.kids(node);
        return {
          ...span,
          kind: 'instanceOf',
          value: this.expression(kids[0]!),
          type: this.type(kids[kids.length - 1]!),
        };
      }
      case 'SimplePositiveUnaryTest':
        return this.simpleUnaryTest(node, span);
      case 'FunctionDefinition':
        return this.functionDefinition(node, span);
      default:
        throw this.error(`${describe(node)} is not supported`, node);
    }
  }

  private number(node: SyntaxNode, span: Span): Node {
    const text = this.text(node).replace(/\s+/g, '');
    // lezer-feel reads `1e3`; feel-scala has no exponent syntax.
    const value = /[eE]/.test(text) ? null : parseNumber(text);
    if (value === null) throw this.error(`"${text}" is not a FEEL number`, node);
    return { ...span, kind: 'const', value };
  }

  private dateTimeLiteral(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    const at = kids[0]!;
    if (at.name === 'AtLiteral') {
      const literal = this.operands(at).find((kid) => kid.name === 'StringLiteral');
      if (!literal) throw this.error('"@" must be followed by a string', at);
      return { ...span, kind: 'temporal', form: '@', text: this.text(literal).slice(1, -1) };
    }
    // `date("…")` read by the date-time grammar rule: the same as the call.
    const name = this.text(at).replace(/\s+/g, ' ');
    const params = kids.find((kid) => kid.name === 'PositionalParameters' || kid.name === 'NamedParameters');
    return this.call(name, this.span(at), params ?? null, span);
  }

  private context(node: SyntaxNode, span: Span): Node {
    const entries = this.operands(node).map((entry) => {
      const [key, value] = this.operands(entry);
      const keyNode = only(this.kids(key!), key!, this);
      // feel-scala takes a quoted key as written, without reading escapes.
      const name = keyNode.name === 'StringLiteral' ? this.text(keyNode).slice(1, -1) : this.text(keyNode);
      return { key: name, value: this.expression(value!) };
    });
    return { ...span, kind: 'context', entries };
  }

  private nameOf(node: SyntaxNode): string {
    const kids = this.kids(node);
    if (kids.length === 1 && kids[0]!.name === 'BacktickIdentifier') return this.text(kids[0]!).slice(1, -1);
    const text = this.text(node);
    return STAND_INS[text] ?? text;
  }

  private isBacktick(node: SyntaxNode): boolean {
    return node.firstChild?.name === 'BacktickIdentifier';
  }

  private variable(node: SyntaxNode, span: Span): Node {
    const name = this.nameOf(node);
    if (this.known !== undefined && !this.isBacktick(node) && !SYMBOL_IN_NAME.test(name)) {
      return { ...span, kind: 'ref', name };
    }
    if (!this.isBacktick(node) && SYMBOL_IN_NAME.test(name) && !this.known?.[name]) return this.reparse(node);
    if (this.known === undefined && !this.isBacktick(node) && /\s/.test(name)) {
      throw this.error(`"${name}" is not a name: a name with spaces must be written in backticks (\`${name}\`)`, node);
    }
    return { ...span, kind: 'ref', name };
  }

  /** A name lezer-feel read with operators in it (`a-b`, after `{a-b: …}`): feel-scala reads the operators. */
  private reparse(node: SyntaxNode): Node {
    const text = this.text(node);
    const tree = this.parseAgain(text);
    const inner = new Builder(text, node.from + this.offset, this.original, this.parseAgain, this.known);
    inner.checkErrors(tree.topNode);
    const top = only(inner.kids(tree.topNode), tree.topNode, inner);
    if (top.name === 'VariableName' && top.to - top.from === text.length)
      throw this.error(`"${text}" is not a name`, node);
    return inner.expression(top);
  }

  private path(node: SyntaxNode, span: Span): Node {
    const [target, key] = this.operands(node);
    const name = this.nameOf(key!);
    if (
      this.known === undefined &&
      !this.isBacktick(key!) &&
      /\s/.test(name) &&
      !SPACED_PROPERTIES.has(name.replace(/\s+/g, ' '))
    ) {
      throw this.error(`"${name}" is not a name: a name with spaces must be written in backticks`, key!);
    }
    // feel-scala's names exclude its reserved words: `{null: 1}.null` does not parse.
    if (!this.isBacktick(key!) && RESERVED.has(name))
      throw this.error(`"${name}" is a reserved word, not a name`, key!);
    const keyName = this.isBacktick(key!) ? name : name.replace(/\s+/g, ' ');
    return { ...span, kind: 'path', target: this.expression(target!), key: keyName };
  }

  private invocation(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    const callee = kids[0]!;
    const params = kids.find((kid) => kid.name === 'PositionalParameters' || kid.name === 'NamedParameters') ?? null;
    if (callee.name === 'VariableName' || callee.name === 'SpecialFunctionName') {
      const name = callee.name === 'VariableName' ? this.nameOf(callee) : this.text(callee);
      return this.call(name, this.span(callee), params, span);
    }
    if (callee.name === 'PathExpression') {
      const [target, key] = this.operands(callee);
      if (this.isQualifiedName(target!)) {
        return {
          ...span,
          kind: 'qualifiedCall',
          target: this.expression(target!),
          name: this.nameOf(key!),
          args: this.args(params),
          nameSpan: this.span(key!),
        };
      }
    }
    throw this.error('only a function name or a qualified name (a.b.f) can be called', callee);
  }

  private isQualifiedName(node: SyntaxNode): boolean {
    if (node.name === 'VariableName') return true;
    if (node.name !== 'PathExpression') return false;
    return this.isQualifiedName(this.operands(node)[0]!);
  }

  private call(name: string, nameSpan: Span, params: SyntaxNode | null, span: Span): Node {
    const args = this.args(params);
    // feel-scala reads `date("2024-05-01")` with a string literal as a literal, not a call.
    if (TEMPORAL_FORMS.has(name) && args.kind === 'positional' && args.items.length === 1 && params) {
      const only = this.operands(params)[0]!;
      if (only.name === 'StringLiteral') {
        return { ...span, kind: 'temporal', form: name as TemporalForm, text: this.text(only).slice(1, -1) };
      }
    }
    return { ...span, kind: 'call', name, args, nameSpan };
  }

  private args(params: SyntaxNode | null): Arguments {
    if (params === null || params.name === 'PositionalParameters') {
      const items = params ? this.operands(params).map((item) => this.argument(item)) : [];
      return { kind: 'positional', items };
    }
    const items = this.operands(params).map((param) => {
      const [name, value] = this.operands(param);
      return { name: this.text(name!).replace(/\s+/g, ' '), value: this.argument(value!), span: this.span(param) };
    });
    return { kind: 'named', items };
  }

  /** An argument: an interval there is a range value (feel-scala's `range | expression`). */
  private argument(node: SyntaxNode): Node {
    const interval = node.name === 'SimplePositiveUnaryTest' ? node.getChild('Interval') : null;
    if (interval) return { ...this.span(node), kind: 'range', ...this.bounds(interval) };
    return this.expression(node);
  }

  private bounds(interval: SyntaxNode): { start: Bound; end: Bound } {
    const kids = this.kids(interval);
    const open = this.text(kids[0]!);
    const close = this.text(kids[kids.length - 1]!);
    const [low, high] = kids.slice(1, -1).filter((kid) => kid.name !== '..');
    return {
      start: { node: this.expression(low!), closed: open === '[' },
      end: { node: this.expression(high!), closed: close === ']' },
    };
  }

  private iteration(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    const kind = node.name === 'ForExpression' ? 'for' : (this.text(kids[0]!) as 'some' | 'every');
    const contexts = kids.find((kid) => kid.name === 'InExpressions')!;
    const iterators: Iterator[] = this.operands(contexts).map((entry) => {
      const [name, , source] = this.kids(entry);
      const parts = this.operands(source!);
      const start = this.expression(parts[0]!);
      const value: Node =
        parts.length === 2
          ? { ...this.span(source!), kind: 'iteration', start, end: this.expression(parts[1]!) }
          : start;
      return { name: this.text(name!), source: value };
    });
    return { ...span, kind, iterators, body: this.expression(kids[kids.length - 1]!) };
  }

  private comparison(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    const left = kids[0]!;
    const second = kids[1]!;
    if (second.name === 'CompareOp') {
      // feel-scala reads one comparison per operand: `a = b = c` does not parse there.
      if (left.name === 'Comparison') throw this.error('comparisons cannot be chained; use parentheses', second);
      const op = this.text(second);
      const l = this.expression(left);
      const r = this.expression(kids[2]!);
      if (op === '!=')
        return { ...span, kind: 'not', operand: { ...span, kind: 'compare', op: '=', left: l, right: r } };
      return { ...span, kind: 'compare', op: op as CompareOp, left: l, right: r };
    }
    if (second.name === 'between') {
      const value = this.expression(left);
      const low = this.expression(kids[2]!);
      const high = this.expression(kids[4]!);
      return {
        ...span,
        kind: 'and',
        left: { ...span, kind: 'compare', op: '>=', left: value, right: low },
        right: { ...span, kind: 'compare', op: '<=', left: value, right: high },
      };
    }
    // `x in …`: a single positive unary test, or several in parentheses.
    const value = this.expression(left);
    const tests = kids.find((kid) => kid.name === 'PositiveUnaryTests');
    const test = tests
      ? this.positiveUnaryTests(tests)
      : this.positiveUnaryTest(kids.find((kid) => kid.name === 'PositiveUnaryTest')!);
    return { ...span, kind: 'in', value, test };
  }

  private arithmetic(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    if (kids.length === 2) {
      const op = this.text(kids[0]!);
      if (op !== '-') throw this.error(`"${op}" is not a FEEL prefix operator`, kids[0]!);
      return liftInstanceOf(this.expression(kids[1]!), (operand) => ({ ...span, kind: 'negate', operand }));
    }
    const op = this.text(kids[1]!);
    if (!['+', '-', '*', '/', '**'].includes(op)) throw this.error(`"${op}" is not a FEEL operator`, kids[1]!);
    const left = this.expression(kids[0]!);
    return liftInstanceOf(this.expression(kids[2]!), (right) => ({
      ...span,
      kind: 'arith',
      op: op as ArithOp,
      left,
      right,
    }));
  }

  protected simpleUnaryTest(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    if (kids[0]!.name === 'Interval') return { ...span, kind: 'inputInRange', ...this.bounds(kids[0]!) };
    const op = this.text(kids[0]!);
    // feel-scala's unary comparisons are < <= > >= only.
    if (op === '=' || op === '!=') throw this.error(`"${op}" cannot start a unary test`, kids[0]!);
    return { ...span, kind: 'inputCompare', op: op as CompareOp, value: this.expression(kids[1]!) };
  }

  private functionDefinition(node: SyntaxNode, span: Span): Node {
    const kids = this.kids(node);
    const external = kids.find((kid) => kid.name === 'external');
    if (external) throw this.error('external functions are not supported', external);
    const params = this.operands(kids.find((kid) => kid.name === 'FormalParameters')!).map((param) =>
      this.text(this.operands(param)[0]!).replace(/\s+/g, ' '),
    );
    const body = kids.find((kid) => kid.name === 'FunctionBody')!;
    return { ...span, kind: 'function', params, body: this.expression(body) };
  }

  private type(node: SyntaxNode): TypeRef {
    const inner = node.name === 'Type' ? only(this.kids(node), node, this) : node;
    switch (inner.name) {
      case 'QualifiedName':
        return {
          kind: 'name',
          name: this.operands(inner)
            .map((part) => this.nameOf(part).replace(/\s+/g, ' '))
            .join('.'),
        };
      case 'SpecialType':
        return { kind: 'name', name: this.text(inner).replace(/\s+/g, ' ') };
      case 'ListType':
        return { kind: 'list', item: this.type(inner.getChild('Type')!) };
      case 'FunctionType': {
        const types = inner.getChildren('Type');
        const args = inner.getChild('ArgumentTypes');
        const params = args ? this.operands(args).map((arg) => this.type(arg.getChild('Type')!)) : [];
        return { kind: 'function', params, result: this.type(types[types.length - 1]!) };
      }
      default:
        throw this.error(`type ${this.text(inner)} is not supported`, inner);
    }
  }

  protected positiveUnaryTests(node: SyntaxNode): Node {
    const tests = this.operands(node).map((test) => this.positiveUnaryTest(test));
    return tests.length === 1 ? tests[0]! : { ...this.span(node), kind: 'atLeastOne', items: tests };
  }

  protected positiveUnaryTest(node: SyntaxNode): Node {
    return this.positiveUnaryTestOf(only(this.kids(node), node, this), true);
  }

  /** feel-scala's `positiveUnaryTest`: a boolean that ends the whole input compares, other expressions test. */
  protected positiveUnaryTestOf(node: SyntaxNode, mayEnd: boolean): Node {
    const span = this.span(node);
    if (node.name === 'SimplePositiveUnaryTest') return this.simpleUnaryTest(node, span);
    const expression = this.expression(node);
    if (node.name === 'BooleanLiteral' && mayEnd && isAtEnd(this.source, node.to)) {
      return { ...span, kind: 'inputCompare', op: '=', value: expression };
    }
    return { ...span, kind: 'unaryTestExpression', node: expression };
  }
}
