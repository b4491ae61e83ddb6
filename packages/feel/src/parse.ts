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
import { type KnownNames, prepareSource, STAND_INS } from './source.js';
import { Builder } from './tree-builder.js';
import { only } from './tree-words.js';
import { UnaryTestsBuilder } from './unary-tests-builder.js';

export type { KnownNames } from './source.js';

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

interface Parsers {
  expression: typeof expressionParser;
  unaryTests: typeof unaryTestsParser;
}

const DEFAULT_PARSERS: Parsers = { expression: expressionParser, unaryTests: unaryTestsParser };
const parsersByNames = new WeakMap<KnownNames, Parsers>();

function parsersFor(names: KnownNames | undefined): Parsers {
  if (names === undefined) return DEFAULT_PARSERS;
  let parsers = parsersByNames.get(names);
  if (parsers === undefined) {
    const tracker = trackVariables({ ...context, ...names });
    parsers = {
      expression: parser.configure({ top: 'Expression', contextTracker: tracker, dialect: 'camunda' }),
      unaryTests: parser.configure({ top: 'UnaryTests', contextTracker: tracker, dialect: 'camunda' }),
    };
    parsersByNames.set(names, parsers);
  }
  return parsers;
}

/** Parses a FEEL expression into feel-scala's syntax. @throws FeelSyntaxError */
export function parseExpressionTree(source: string, names?: KnownNames): Node {
  const parsers = parsersFor(names);
  const parseAgain = (text: string) => parsers.expression.parse(text);
  const text = prepareSource(source);
  const tree = parsers.expression.parse(text);
  const builder = new Builder(text, 0, source, parseAgain, names);
  builder.checkErrors(tree.topNode);
  return builder.expression(only(builder.kids(tree.topNode), tree.topNode, builder));
}

/** Parses FEEL unary tests (a decision table's input entry) into feel-scala's syntax. @throws FeelSyntaxError */
export function parseUnaryTestsTree(source: string, names?: KnownNames): Node {
  const parsers = parsersFor(names);
  const parseAgain = (text: string) => parsers.expression.parse(text);
  const text = prepareSource(source);
  const tree = parsers.unaryTests.parse(text);
  const builder = new UnaryTestsBuilder(text, 0, source, parseAgain, names);
  builder.checkErrors(tree.topNode);
  return builder.unaryTests(tree.topNode);
}
