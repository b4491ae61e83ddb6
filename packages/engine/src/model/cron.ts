/**
 * Cron expressions as Zeebe accepts them in a `timeCycle`: Spring's `CronExpression` syntax, six
 * fields (second minute hour day-of-month month day-of-week) or a macro such as `@daily`. Checked at
 * compile time so a malformed cron refuses the model instead of failing when the timer is armed.
 *
 * @module
 */

/** Spring's macros, each standing for a six-field expression. */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** Spring numbers days of the week 0–7, Sunday being both 0 and 7. */
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldType {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** The offset of `names[0]`: months are 1-based, days 0-based. */
  namesFrom?: number;
}

const FIELDS: readonly FieldType[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { name: 'day-of-week', min: 0, max: 7, names: DAYS, namesFrom: 0 },
];

/** Whether a timer cycle literal is written as a cron expression (rather than an ISO repeating interval). */
export function looksLikeCron(text: string): boolean {
  return text.startsWith('@') || /\s/.test(text.trim());
}

/**
 * Checks a cron expression.
 *
 * @returns what is wrong with it, or null when Zeebe (Spring) would accept it.
 */
export function cronIssue(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('@')) {
    return Object.hasOwn(CRON_MACROS, trimmed)
      ? null
      : `unknown cron macro ${trimmed} (use ${Object.keys(CRON_MACROS).join(', ')})`;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 6) {
    return `a cron expression needs 6 fields (second minute hour day-of-month month day-of-week), found ${fields.length}`;
  }
  for (const [index, type] of FIELDS.entries()) {
    const field = fields[index] ?? '';
    for (const part of field.split(',')) {
      const issue = partIssue(part, type);
      if (issue) return `${type.name} field "${field}": ${issue}`;
    }
  }
  return null;
}

function partIssue(part: string, type: FieldType): string | null {
  if (part === '') return 'empty list entry';
  const upper = part.toUpperCase();
  if (type.name === 'day-of-month') {
    if (upper === '?') return null;
    if (/[LW]/.test(upper)) return lastOrWeekdayIssue(upper);
  }
  if (type.name === 'day-of-week') {
    if (upper === '?') return null;
    if (upper.includes('#')) return nthDayIssue(upper, type);
    if (upper.endsWith('L')) {
      const day = upper.slice(0, -1);
      return day === '' ? '"L" needs a day before it (e.g. 5L or FRIL)' : valueIssue(day, type);
    }
  }
  const slash = upper.indexOf('/');
  const range = slash < 0 ? upper : upper.slice(0, slash);
  if (slash >= 0) {
    const step = upper.slice(slash + 1);
    if (!/^\d+$/.test(step) || Number(step) === 0) return `step "${step}" is not a positive number`;
  }
  if (range === '*') return null;
  const dash = range.indexOf('-');
  if (dash < 0) return valueIssue(range, type);
  const from = range.slice(0, dash);
  const to = range.slice(dash + 1);
  const issue = valueIssue(from, type) ?? valueIssue(to, type);
  if (issue) return issue;
  if ((numberOf(from, type) ?? 0) > (numberOf(to, type) ?? 0)) return `range "${range}" runs backwards`;
  return null;
}

/** Day-of-month `L`, `L-3`, `LW`, `15W`. */
function lastOrWeekdayIssue(part: string): string | null {
  if (part === 'L' || part === 'LW') return null;
  const offset = /^L-(\d+)$/.exec(part);
  if (offset) return Number(offset[1]) <= 30 ? null : `"${part}" reaches before the first of the month`;
  const weekday = /^(\d+)W$/.exec(part);
  if (weekday) return Number(weekday[1]) >= 1 && Number(weekday[1]) <= 31 ? null : `"${part}" is not a day 1–31`;
  return `"${part}" is not L, L-n, LW or nW`;
}

/** Day-of-week `5#2` / `FRI#2`: the n-th such day of the month. */
function nthDayIssue(part: string, type: FieldType): string | null {
  const [day = '', nth = ''] = part.split('#');
  const issue = valueIssue(day, type);
  if (issue) return issue;
  return /^[1-5]$/.test(nth) ? null : `"#${nth}" is not an occurrence 1–5`;
}

function valueIssue(text: string, type: FieldType): string | null {
  const value = numberOf(text, type);
  if (value === undefined) return `"${text}" is not a ${type.name} value`;
  if (value < type.min || value > type.max) return `${value} is outside ${type.min}–${type.max}`;
  return null;
}

function numberOf(text: string, type: FieldType): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const index = type.names?.indexOf(text) ?? -1;
  return index < 0 ? undefined : index + (type.namesFrom ?? 0);
}
