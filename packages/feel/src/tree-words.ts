/**
 * What lezer-feel's tree holds that feel-scala reads apart: nodes skipped, punctuation, keywords, reserved words,
 * property names with spaces, temporal forms; and the small reshapings the builders share.
 *
 * @module
 */
import type { SyntaxNode } from '@lezer/common';
import type { Node } from './ast.js';

// Properties of temporal values and ranges whose names have spaces: read without backticks.
export const SPACED_PROPERTIES = new Set(['time offset', 'start included', 'end included']);

export const SKIPPED = new Set(['LineComment', 'BlockComment']);
export const PUNCTUATION = new Set(['(', ')', '[', ']', '{', '}', ',', '..', ':', '.', '"']);
export const TEMPORAL_FORMS: ReadonlySet<string> = new Set(['date', 'time', 'date and time', 'duration']);
/** Characters lezer-feel lets into a name the expression defined (`{a-b: 1}`), where feel-scala sees operators. */
export const SYMBOL_IN_NAME = /[-+*/.'^]/;

/** The single node of `nodes`, or a syntax error (none: empty; more: unexpected input). */
export function only(
  nodes: SyntaxNode[],
  parent: SyntaxNode,
  builder: { error(reason: string, node: SyntaxNode): Error },
): SyntaxNode {
  if (nodes.length !== 1)
    throw builder.error(nodes.length === 0 ? 'expression is empty' : 'unexpected input', nodes[1] ?? parent);
  return nodes[0]!;
}

export const KEYWORDS = new Set(['if', 'then', 'else']);
/** feel-scala's reserved words, which are not names. */
export const RESERVED = new Set([
  'null',
  'true',
  'false',
  'function',
  'in',
  'return',
  'then',
  'else',
  'satisfies',
  'and',
  'or',
]);

/**
 * lezer-feel binds `instance of` tighter than arithmetic; feel-scala tests the whole arithmetic
 * (`2 * 3 instance of number` is `(2 * 3) instance of number`). Moves the test out of an operand.
 */
export function liftInstanceOf(operand: Node, wrap: (operand: Node) => Node): Node {
  if (operand.kind !== 'instanceOf') return wrap(operand);
  return { ...operand, value: wrap(operand.value) };
}

export function describe(node: SyntaxNode | null): string {
  if (!node) return 'expression';
  return node.name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
