/**
 * The FEEL syntax tree Thresher compiles: the shapes of feel-scala's `Exp` (its parser's output), built
 * from lezer-feel's parse tree by `parse.ts`. Every node carries its source span.
 *
 * @module
 */
import type { FeelValue } from './values.js';

/** A node's source span: 0-based character offsets, `to` exclusive. */
export interface Span {
  from: number;
  to: number;
}

/** How a temporal literal is written: `@"…"`, or `date("…")`-style with a string literal. */
export type TemporalForm = '@' | 'date' | 'time' | 'date and time' | 'duration';

/** The comparison operators of FEEL. */
export type CompareOp = '=' | '<' | '<=' | '>' | '>=';
/** The arithmetic operators of FEEL. */
export type ArithOp = '+' | '-' | '*' | '/' | '**';

/** One end of a range literal `[1..5)`. */
export interface Bound {
  node: Node;
  closed: boolean;
}

/** `for x in …` / `some x in …`: the variable and what it iterates. */
export interface Iterator {
  name: string;
  source: Node;
}

/** The arguments of a call: by position, or by parameter name. */
export type Arguments =
  | { kind: 'positional'; items: Node[] }
  | { kind: 'named'; items: { name: string; value: Node; span: Span }[] };

/** A type after `instance of`. */
export type TypeRef =
  | { kind: 'name'; name: string }
  | { kind: 'list'; item: TypeRef }
  | { kind: 'function'; params: TypeRef[]; result: TypeRef };

/** A FEEL expression or unary test, as feel-scala's interpreter sees it. */
export type Node = Span &
  (
    | { kind: 'const'; value: FeelValue }
    | { kind: 'temporal'; form: TemporalForm; text: string }
    | { kind: 'input' }
    | { kind: 'list'; items: Node[] }
    | { kind: 'context'; entries: { key: string; value: Node }[] }
    | { kind: 'range'; start: Bound; end: Bound }
    | { kind: 'inputCompare'; op: CompareOp; value: Node }
    | { kind: 'inputInRange'; start: Bound; end: Bound }
    | { kind: 'unaryTestExpression'; node: Node }
    | { kind: 'atLeastOne'; items: Node[] }
    | { kind: 'arith'; op: ArithOp; left: Node; right: Node }
    | { kind: 'negate'; operand: Node }
    | { kind: 'compare'; op: CompareOp; left: Node; right: Node }
    | { kind: 'not'; operand: Node }
    | { kind: 'or'; left: Node; right: Node }
    | { kind: 'and'; left: Node; right: Node }
    | { kind: 'if'; condition: Node; whenTrue: Node; whenFalse: Node }
    | { kind: 'in'; value: Node; test: Node }
    | { kind: 'instanceOf'; value: Node; type: TypeRef }
    | { kind: 'ref'; name: string }
    | { kind: 'path'; target: Node; key: string }
    | { kind: 'for' | 'some' | 'every'; iterators: Iterator[]; body: Node }
    | { kind: 'filter'; list: Node; filter: Node }
    | { kind: 'iteration'; start: Node; end: Node }
    | { kind: 'call'; name: string; args: Arguments; nameSpan: Span }
    | { kind: 'qualifiedCall'; target: Node; name: string; args: Arguments; nameSpan: Span }
    | { kind: 'function'; params: string[]; body: Node }
  );

/** The node of a given kind. */
export type NodeOf<TKind extends Node['kind']> = Extract<Node, { kind: TKind }>;
