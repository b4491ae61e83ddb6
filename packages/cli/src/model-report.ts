import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { EngineError, EngineErrorCode, type ModelError, type ModelIssue } from '@thresher/engine';
import { UsageError } from './errors.js';

/** Reads a model file (BPMN, DMN, a fixture) named on the command line; an unreadable file is a usage error naming it. */
export async function readModelFile(file: string, cwd: string, usage: string): Promise<string> {
  const path = resolve(cwd, file);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : String(error);
    throw new UsageError(`cannot read ${file}: ${why} (${path})`, usage);
  }
}

/** A `ModelError`, by code so the check survives duplicate copies of the engine package. */
export function isModelError(error: unknown): error is ModelError {
  return EngineError.is(error) && error.code === EngineErrorCode.Model;
}

/** One issue as `type "id" (line n): message`. */
export function formatIssue(issue: ModelIssue): string {
  const where = issue.elementId ? `${issue.elementType ?? 'element'} "${issue.elementId}"` : 'model';
  return `${where}${issue.line ? ` (line ${issue.line})` : ''}: ${issue.message}`;
}

/** The issues of a model error, falling back to the error itself when it carries none. */
export function issuesOf(error: ModelError): ModelIssue[] {
  if (error.issues.length > 0) return error.issues;
  return [
    {
      elementId: error.elementId,
      elementType: error.elementType,
      message: error.message,
      ...(error.line ? { line: error.line } : {}),
    },
  ];
}

/** The human report of a model Thresher refuses: every issue, each naming its element. */
export function formatModelError(error: ModelError, file: string | undefined): string {
  const issues = issuesOf(error);
  const count = issues.length === 1 ? '1 issue' : `${issues.length} issues`;
  return [
    `${file ?? 'the model'}: invalid model (${count}):`,
    ...issues.map((issue) => `  ${formatIssue(issue)}`),
  ].join('\n');
}

/** The JSON shape of a refused model. */
export function modelErrorDocument(error: ModelError, file: string | undefined): Record<string, unknown> {
  return {
    status: 'invalid',
    ...(file ? { file } : {}),
    error: { code: error.code, message: error.message },
    issues: issuesOf(error).map((issue) => ({
      elementId: issue.elementId,
      elementType: issue.elementType,
      message: issue.message,
      line: issue.line ?? null,
    })),
  };
}
