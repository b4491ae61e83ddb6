import { type DmnDefinitions, isDmn, readDmn, type Touchpoint, touchpoints } from '@thresher/engine';
import { compile, type Node, type ProcessDef, type ProcessModel } from '@thresher/engine/model';
import { commandSpec, flag, type Parsed, parseWith } from '../args.js';
import { defineCommand } from '../command.js';
import { dmnDocument, formatDmn } from '../dmn-report.js';
import { jsonOption } from '../drive-options.js';
import { UsageError } from '../errors.js';
import { ExitCode } from '../exit-code.js';
import { formatModelError, isModelError, modelErrorDocument, readModelFile } from '../model-report.js';
import { formatTable, humanDuration } from '../output.js';

export const inspectSpec = commandSpec({
  name: 'inspect',
  usage: 'thresher inspect FILE.bpmn|FILE.dmn [--touchpoints] [--json]',
  summary:
    'compile a BPMN or DMN file and list what it holds (processes and elements, decisions), or every problem found',
  positionals: [
    { name: 'FILE.bpmn|FILE.dmn', required: true, description: 'the BPMN 2.0 or DMN 1.1–1.5 file to compile' },
  ],
  options: {
    touchpoints: {
      type: 'boolean',
      description:
        'list the touchpoints instead: where a run waits for someone (a message, a job handler, a person), in run order',
    },
    json: jsonOption,
  },
  examples: [
    'thresher inspect order.bpmn',
    'thresher inspect order.bpmn --json',
    'thresher inspect order.bpmn --touchpoints',
    'thresher inspect order.bpmn --touchpoints --json',
    'thresher inspect rules.dmn',
  ],
});

const usage = inspectSpec.usage;

/** `thresher inspect`, parsed. */
export interface InspectArgs {
  file: string;
  /** `--touchpoints`: list the model's touchpoints instead of its elements. */
  touchpoints: boolean;
  json: boolean;
}

/** Parses `thresher inspect` arguments. */
export function parseInspectArgs(argv: readonly string[]): Parsed<InspectArgs> {
  return parseWith(inspectSpec, argv, ({ values, positionals }) => ({
    file: positionals[0]!,
    touchpoints: flag(values, 'touchpoints'),
    json: flag(values, 'json'),
  }));
}

/** One element as `inspect` reports it. */
export interface ElementSummary {
  id: string;
  type: Node['type'];
  name: string | null;
  /** The sub-process (or process) it sits in. */
  container: string;
  /** Service tasks: the handler's task type (`=expr` when evaluated as the job is created). */
  taskType?: string;
  /** Service tasks: `zeebe:taskDefinition retries`, when set. */
  retries?: number;
  /** Service tasks: `zeebe:taskDefinition retries` given as `=expr`. */
  retriesExpression?: string;
}

export interface ProcessSummary {
  id: string;
  name: string | null;
  executable: boolean;
  elements: ElementSummary[];
  flows: number;
}

function elementSummary(node: Node): ElementSummary {
  const summary: ElementSummary = { id: node.id, type: node.type, name: node.name, container: node.container };
  if (node.type === 'serviceTask') {
    summary.taskType = node.taskType;
    if (node.retries !== undefined) summary.retries = node.retries;
    if (node.retriesExpression) summary.retriesExpression = `=${node.retriesExpression.source}`;
  }
  return summary;
}

function retriesText(element: ElementSummary): string {
  const retries = element.retries ?? element.retriesExpression;
  return retries === undefined ? '' : ` retries=${retries}`;
}

function processSummary(process: ProcessDef): ProcessSummary {
  return {
    id: process.id,
    name: process.name,
    executable: process.executable,
    elements: [...process.nodes.values()].map(elementSummary),
    flows: process.flows.size,
  };
}

function formatModel(file: string, model: ProcessModel, processes: ProcessSummary[]): string {
  const lines = [`${file}: definitions ${model.definitionId}, digest ${model.digest.slice(0, 12)}`];
  for (const process of processes) {
    const name = process.name ? ` "${process.name}"` : '';
    lines.push('', `process ${process.id}${name}${process.executable ? '' : ' (not executable)'}`);
    const rows = process.elements.map((element) => [
      element.id,
      element.type,
      element.name ?? '',
      element.taskType !== undefined ? `type=${element.taskType}${retriesText(element)}` : '',
    ]);
    lines.push(
      formatTable(['ELEMENT', 'TYPE', 'NAME', 'TASK'], rows)
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n'),
    );
    lines.push(`  ${process.elements.length} elements, ${process.flows} sequence flows`);
  }
  lines.push(...formatWarnings(model));
  return lines.join('\n');
}

/** The touchpoint list as a table per process; the index (`#`) counts through the whole list. */
function formatTouchpoints(file: string, model: ProcessModel, list: readonly Touchpoint[]): string {
  const count = list.length === 1 ? '1 touchpoint' : `${list.length} touchpoints`;
  const lines = [`${file}: ${list.length === 0 ? 'no touchpoints: a run needs no one' : count}`];
  for (const processId of new Set(list.map((touchpoint) => touchpoint.processId))) {
    const rows = list
      .filter((touchpoint) => touchpoint.processId === processId)
      .map((touchpoint) => [
        String(touchpoint.index + 1),
        touchpoint.position,
        touchpoint.label ?? '',
        touchpoint.direction,
        touchpoint.kind,
        touchpoint.via ?? '',
        touchpoint.timeoutS === null ? '' : humanDuration(touchpoint.timeoutS * 1000),
        notes(touchpoint),
      ]);
    const table = formatTable(['#', 'POSITION', 'LABEL', 'DIRECTION', 'KIND', 'VIA', 'TIMEOUT', 'NOTES'], rows);
    lines.push('', `process ${processId}`, ...table.split('\n').map((line) => `  ${line}`));
  }
  lines.push(...formatWarnings(model));
  return lines.join('\n');
}

function formatWarnings(model: ProcessModel): string[] {
  if (model.warnings.length === 0) return [];
  const lines = ['', 'warnings:'];
  for (const warning of model.warnings)
    lines.push(`  ${warning.elementId ? `${warning.elementId}: ` : ''}${warning.message}`);
  return lines;
}

function notes(touchpoint: Touchpoint): string {
  const said = [touchpoint.conditional ? 'only on some paths' : '', touchpoint.repeated ? 'may repeat' : ''];
  return said.filter((note) => note !== '').join(', ');
}

/** `thresher inspect FILE.bpmn|FILE.dmn`: compile without a store and describe the model, or every problem in it. */
export const inspectCommand = defineCommand(inspectSpec, parseInspectArgs, async (args, { io, out }) => {
  const xml = await readModelFile(args.file, io.cwd, usage);
  if (isDmn(xml)) {
    if (args.touchpoints) {
      throw new UsageError(`--touchpoints lists where a BPMN process waits; ${args.file} is a DMN file`, usage);
    }
    let definitions: DmnDefinitions;
    try {
      definitions = readDmn(xml);
    } catch (error) {
      if (!isModelError(error)) throw error;
      if (out.json) out.document(modelErrorDocument(error, args.file));
      else out.print(formatModelError(error, args.file));
      return ExitCode.Failed;
    }
    out.print(formatDmn(args.file, definitions));
    out.document(dmnDocument(args.file, definitions));
    return ExitCode.Ok;
  }
  let model: ProcessModel;
  try {
    model = await compile(xml);
  } catch (error) {
    if (!isModelError(error)) throw error;
    if (out.json) out.document(modelErrorDocument(error, args.file));
    else out.print(formatModelError(error, args.file));
    return ExitCode.Failed;
  }
  if (args.touchpoints) {
    const list = touchpoints(model);
    out.print(formatTouchpoints(args.file, model, list));
    out.document(list);
    return ExitCode.Ok;
  }
  const processes = [...model.processes.values()].map(processSummary);
  out.print(formatModel(args.file, model, processes));
  out.document({
    status: 'ok',
    file: args.file,
    definitionId: model.definitionId,
    digest: model.digest,
    processes,
    warnings: model.warnings,
  });
  return ExitCode.Ok;
});
