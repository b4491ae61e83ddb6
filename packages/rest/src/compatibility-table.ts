import { compatibility } from './operations.js';

const ANSWER = {
  identity: 'not served: no identity yet (501)',
  pending: 'not served yet (501)',
} as const;

/** The compatibility table of docs/camunda-api.md: every operation of the spec, by tag, and how it is answered. */
export function compatibilityTable(): string {
  const rows = compatibility()
    .map(({ operation, notServed }) => ({
      tag: operation.tag,
      operation: `\`${operation.method} ${operation.path}\` (${operation.id})`,
      answer: notServed === undefined ? 'served' : ANSWER[notServed.reason],
    }))
    .sort((a, b) => a.tag.localeCompare(b.tag) || a.operation.localeCompare(b.operation));
  const header = { tag: 'tag', operation: 'operation', answer: 'Thresher' };
  const width = (key: keyof typeof header) => Math.max(...[header, ...rows].map((row) => row[key].length));
  const line = (row: typeof header) =>
    `| ${row.tag.padEnd(width('tag'))} | ${row.operation.padEnd(width('operation'))} | ${row.answer.padEnd(width('answer'))} |`;
  const rule = `| ${'-'.repeat(width('tag'))} | ${'-'.repeat(width('operation'))} | ${'-'.repeat(width('answer'))} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
