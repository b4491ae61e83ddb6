import type { Variables } from '@thresher/checkpoint';
import { decide, readDmn } from '@thresher/engine';
import { commandSpec, flag, type Parsed, parseWith, text } from '../args.js';
import { defineCommand } from '../command.js';
import { formatEvaluated } from '../decisions-report.js';
import { jsonOption, variablesFlag } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { formatModelError, isModelError, modelErrorDocument, readModelFile } from '../model-report.js';
import { formatValue } from '../output.js';

const variables = variablesFlag('an input variable of the decision (repeatable); the value is JSON, else text');

export const decideSpec = commandSpec({
  name: 'decide',
  usage: 'thresher decide FILE.dmn [--decision ID] [--var k=v]... [--json]',
  summary: 'evaluate one decision of a DMN file and print its result and the rules that matched',
  positionals: [{ name: 'FILE.dmn', required: true, description: 'the DMN file holding the decision' }],
  options: {
    decision: {
      type: 'string',
      placeholder: 'ID',
      description: 'the decision to evaluate, with the decisions it requires (needed when the file has several)',
    },
    ...variables.options,
    json: jsonOption,
  },
  examples: [
    'thresher decide rules.dmn --decision shipping --var total=120 --var country=\'"DE"\'',
    'thresher decide rules.dmn --decision shipping --var total=120 --json',
  ],
});

const usage = decideSpec.usage;

/** `thresher decide`, parsed. */
export interface DecideArgs {
  file: string;
  decision: string | undefined;
  variables: Variables;
  json: boolean;
}

export function parseDecideArgs(argv: readonly string[]): Parsed<DecideArgs> {
  return parseWith(decideSpec, argv, ({ values, positionals }) => ({
    file: positionals[0]!,
    decision: text(values, 'decision'),
    ...variables.read(values, usage),
    json: flag(values, 'json'),
  }));
}

/** The decision asked for, or the file's only one; anything else is a usage error naming the choices. */
function pickDecision(ids: readonly string[], requested: string | undefined, file: string): string {
  if (requested !== undefined) {
    if (ids.includes(requested)) return requested;
    throw new UsageError(
      `--decision ${requested}: ${file} has no decision "${requested}"; it has ${ids.join(', ') || 'none'}`,
      usage,
    );
  }
  if (ids.length === 1) return ids[0]!;
  throw new UsageError(
    ids.length === 0
      ? `${file} has no decision to evaluate`
      : `${file} has several decisions; choose one with --decision: ${ids.join(', ')}`,
    usage,
  );
}

/** `thresher decide FILE.dmn …`: no store, no instance; the engine's DMN and FEEL, on the given variables. */
export const decideCommand = defineCommand(decideSpec, parseDecideArgs, async (args, { io, out }) => {
  const xml = await readModelFile(args.file, io.cwd, usage);
  let definitions: ReturnType<typeof readDmn>;
  try {
    definitions = readDmn(xml);
  } catch (error) {
    if (!isModelError(error)) throw error;
    if (out.json) out.document(modelErrorDocument(error, args.file));
    else out.print(formatModelError(error, args.file));
    return ExitCode.Failed;
  }
  const decisionId = pickDecision([...definitions.decisions.keys()], args.decision, args.file);
  const evaluation = decide(definitions, decisionId, args.variables, Date.now);
  const lines = evaluation.evaluated.flatMap((evaluated) => formatEvaluated(evaluated, ''));
  lines.push(
    evaluation.failure === undefined ? `${decisionId} = ${formatValue(evaluation.result)}` : evaluation.failure,
  );
  out.print(lines.join('\n'));
  out.document({
    status: evaluation.failure === undefined ? 'decided' : 'failed',
    file: args.file,
    decisionId,
    ...evaluation,
  });
  return evaluation.failure === undefined ? ExitCode.Ok : ExitCode.Failed;
});
