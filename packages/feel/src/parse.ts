/**
 * Parsing: lezer-feel (the grammar feelin uses) reads the source, then this module turns its tree into
 * the syntax feel-scala's parser produces (`ast.ts`), refusing what feel-scala refuses.
 *
 * lezer-feel reads a name with spaces (`string join`, `get or else`) only when it knows the name: the
 * built-in names are its context. Names the expression binds itself (context entries, parameters) it
 * learns while parsing. Variables from outside never change the parse: the tree depends on the
 * source alone, so an expression is parsed once.
 *
 * @module
 */
import { parser, trackVariables } from 'lezer-feel';
import type { Node } from './ast.js';
import { BUILTIN_NAMES } from './builtins/registry.js';
import { prepareSource, STAND_INS } from './source.js';
import { Builder, only } from './tree-builder.js';

// The names lezer-feel must know to read them with their spaces: the built-ins (but the keywords `and`
// and `or`, read through stand-ins), and the type `days and time duration`.
const KNOWN_NAMES = [
  ...BUILTIN_NAMES.filter((name) => name !== 'and' && name !== 'or'),
  ...Object.keys(STAND_INS),
  'days and time duration',
];
const context = Object.fromEntries(KNOWN_NAMES.map((name) => [name, 1]));
const expressionParser = parser.configure({
  top: 'Expression',
  contextTracker: trackVariables(context),
  dialect: 'camunda',
});
const unaryTestsParser = parser.configure({
  top: 'UnaryTests',
  contextTracker: trackVariables(context),
  dialect: 'camunda',
});

const parseAgain = (text: string) => expressionParser.parse(text);

/** Parses a FEEL expression into feel-scala's syntax. @throws FeelSyntaxError */
export function parseExpressionTree(source: string): Node {
  const text = prepareSource(source);
  const tree = expressionParser.parse(text);
  const builder = new Builder(text, 0, source, parseAgain);
  builder.checkErrors(tree.topNode);
  return builder.expression(only(builder.kids(tree.topNode), tree.topNode, builder));
}

/** Parses FEEL unary tests (a decision table's input entry) into feel-scala's syntax. @throws FeelSyntaxError */
export function parseUnaryTestsTree(source: string): Node {
  const text = prepareSource(source);
  const tree = unaryTestsParser.parse(text);
  const builder = new Builder(text, 0, source, parseAgain);
  builder.checkErrors(tree.topNode);
  return builder.unaryTests(tree.topNode);
}
