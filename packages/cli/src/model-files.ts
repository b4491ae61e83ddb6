/**
 * The model files a command is given (BPMN and DMN, told apart by namespace), read and checked before any
 * store is opened: a refused file touches nothing.
 *
 * @module
 */
import { isDmn, type ModelError, readDmn } from '@thresher/engine';
import { compile, type ProcessModel } from '@thresher/engine/model';
import { isModelError, readModelFile } from './model-report.js';

/** One file read and checked. */
export type ModelFile =
  | { kind: 'bpmn'; file: string; xml: string; model: ProcessModel }
  | { kind: 'dmn'; file: string; xml: string };

/** A file the engine refuses, with its problems. */
export interface RefusedFile {
  file: string;
  error: ModelError;
}

/**
 * Reads every file (an unreadable one is a usage error naming it) and checks it as `deploy` would.
 *
 * @returns the files in the order given, or the first one refused.
 */
export async function readModelFiles(
  files: readonly string[],
  cwd: string,
  usage: string,
): Promise<{ ok: true; files: ModelFile[] } | { ok: false; refused: RefusedFile }> {
  const read: ModelFile[] = [];
  for (const file of files) {
    const xml = await readModelFile(file, cwd, usage);
    try {
      if (isDmn(xml)) {
        readDmn(xml);
        read.push({ kind: 'dmn', file, xml });
      } else {
        read.push({ kind: 'bpmn', file, xml, model: await compile(xml) });
      }
    } catch (error) {
      if (!isModelError(error)) throw error;
      return { ok: false, refused: { file, error } };
    }
  }
  return { ok: true, files: read };
}

/**
 * The deploy order: decisions first, then the BPMN files after the first (processes it calls), the first
 * BPMN file last, so whatever a started instance reaches is deployed before it starts.
 */
export function deployOrder(files: readonly ModelFile[]): ModelFile[] {
  const dmn = files.filter((file) => file.kind === 'dmn');
  const [main, ...others] = files.filter((file) => file.kind === 'bpmn');
  return [...dmn, ...others, ...(main ? [main] : [])];
}
