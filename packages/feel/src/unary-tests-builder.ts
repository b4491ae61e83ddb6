/**
 * Unary tests (a decision table's input entry) from lezer-feel's tree, as feel-scala reads them: `-`, `not(…)`
 * as negation before a call of the built-in `not`, a list of positive tests, and a boolean that ends the input
 * compared with it rather than tested.
 *
 * @module
 */
import type { SyntaxNode } from '@lezer/common';
import type { Node } from './ast.js';
import { Builder } from './tree-builder.js';
import { only } from './tree-words.js';

export class UnaryTestsBuilder extends Builder {
  unaryTests(top: SyntaxNode): Node {
    const kids = this.kids(top);
    const first = kids[0];
    if (!first) throw this.error('unary tests are empty', top);
    if (first.name === 'Wildcard') return { ...this.span(top), kind: 'const', value: true };
    if (first.name === 'not') {
      return {
        ...this.span(top),
        kind: 'not',
        operand: this.positiveUnaryTests(kids.find((kid) => kid.name === 'PositiveUnaryTests')!),
      };
    }
    // lezer-feel reads `not(…)` as a call of the built-in `not`; feel-scala tries negation first.
    const negation = this.negation(first);
    if (negation) return negation;
    return this.positiveUnaryTests(first);
  }

  private negation(tests: SyntaxNode): Node | null {
    const list = this.operands(tests);
    if (list.length !== 1) return null;
    const call = only(this.kids(list[0]!), list[0]!, this);
    if (call.name !== 'FunctionInvocation') return null;
    const [callee, ...rest] = this.kids(call);
    const params = rest.find((kid) => kid.name === 'PositionalParameters');
    if (callee!.name !== 'VariableName' || this.text(callee!) !== 'not' || !params) return null;
    const items = this.operands(params);
    if (items.length === 0) return null;
    const positive = items.map((item) => this.positiveUnaryTestOf(item, false));
    const operand: Node =
      positive.length === 1 ? positive[0]! : { ...this.span(params), kind: 'atLeastOne', items: positive };
    return { ...this.span(call), kind: 'not', operand };
  }
}
