import { compile } from './compile.js';
import type { ProcessModel } from './process-types.js';

/** Models kept per process; the least recently used goes first beyond it. */
const LIMIT = 256;

const models = new Map<string, Promise<ProcessModel>>();

/**
 * The compiled model of `xml`, compiled once per process: every engine of the process (a fresh one restoring
 * an instance, a worker started again) shares it. The IR is deeply frozen, so sharing it is safe; a model that
 * does not compile is not kept.
 */
export function compileShared(xml: string): Promise<ProcessModel> {
  const known = models.get(xml);
  if (known) {
    models.delete(xml);
    models.set(xml, known);
    return known;
  }
  const compiled = compile(xml);
  models.set(xml, compiled);
  compiled.catch(() => {
    if (models.get(xml) === compiled) models.delete(xml);
  });
  if (models.size > LIMIT) models.delete(models.keys().next().value!);
  return compiled;
}
