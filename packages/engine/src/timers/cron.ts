/**
 * Cron expressions as Zeebe accepts them in a `timeCycle`: Spring's `CronExpression` syntax, six
 * fields (second minute hour day-of-month month day-of-week) or a macro such as `@daily`. Parsed once
 * here: at compile time so a malformed cron refuses the model instead of failing when the timer is
 * armed, and by the runtime (`cron-next.ts`) to find the next occurrence.
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
  /** Where `*` starts: day-of-week's `*` is Spring's 1–7 (Monday to Sunday), so `*∕2` is Mon, Wed, Fri, Sun. */
  first?: number;
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
  { name: 'day-of-week', min: 0, max: 7, first: 1, names: DAYS, namesFrom: 0 },
];

/**
 * One entry of the day-of-month or day-of-week list. Days of the week are numbered as JavaScript's
 * `getUTCDay()`: 0 Sunday … 6 Saturday (Spring's 7 becomes 0).
 */
export type CronDayRule =
  /** `*` or `?`: any day. */
  | { kind: 'any' }
  /** Plain values, ranges and steps: days of the month 1–31, or days of the week 0–6. */
  | { kind: 'days'; days: readonly number[] }
  /** Day-of-month `L` (offset 0) or `L-n`: the n-th day before the last of the month. */
  | { kind: 'last'; offset: number }
  /** Day-of-month `LW`: the last Monday–Friday of the month. */
  | { kind: 'lastWeekday' }
  /** Day-of-month `nW`: the Monday–Friday nearest to day n, within the month. */
  | { kind: 'nearestWeekday'; day: number }
  /** Day-of-week `dL`: the last such day of the month. */
  | { kind: 'lastOfWeek'; weekday: number }
  /** Day-of-week `d#n`: the n-th such day of the month. */
  | { kind: 'nthOfWeek'; weekday: number; nth: number };

/** A parsed cron expression: the allowed values of each time field (ascending), and the day rules. */
export interface CronSchedule {
  seconds: readonly number[];
  minutes: readonly number[];
  hours: readonly number[];
  /** 1–12. */
  months: readonly number[];
  /** Any entry may match (a list is a union); day-of-month and day-of-week must both match, as in Spring. */
  daysOfMonth: readonly CronDayRule[];
  daysOfWeek: readonly CronDayRule[];
}

/** A text that is not a cron expression; the message says what is wrong (as {@link cronIssue} reports it). */
export class CronError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CronError';
  }
}

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
  try {
    parseCron(text);
    return null;
  } catch (error) {
    if (error instanceof CronError) return error.message;
    throw error;
  }
}

/**
 * Parses a cron expression (six fields, or a macro; names and macros in any case, as Spring reads them).
 *
 * @throws CronError saying what is wrong.
 */
export function parseCron(text: string): CronSchedule {
  let trimmed = text.trim();
  if (trimmed.startsWith('@')) {
    const name = trimmed.toLowerCase();
    if (!Object.hasOwn(CRON_MACROS, name)) {
      throw new CronError(`unknown cron macro ${trimmed} (use ${Object.keys(CRON_MACROS).join(', ')})`);
    }
    trimmed = CRON_MACROS[name]!;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 6) {
    throw new CronError(
      `a cron expression needs 6 fields (second minute hour day-of-month month day-of-week), found ${fields.length}`,
    );
  }
  const parsed = FIELDS.map((type, index) => {
    const field = fields[index] ?? '';
    return field.split(',').map((part) => {
      const rule = parsePart(part, type);
      if (typeof rule === 'string') throw new CronError(`${type.name} field "${field}": ${rule}`);
      return rule;
    });
  });
  const values = (index: number): number[] => {
    const set = new Set<number>();
    for (const rule of parsed[index] ?? []) if (rule.kind === 'days') for (const value of rule.days) set.add(value);
    return [...set].sort((a, b) => a - b);
  };
  return {
    seconds: values(0),
    minutes: values(1),
    hours: values(2),
    months: values(4),
    daysOfMonth: parsed[3] ?? [],
    daysOfWeek: parsed[5] ?? [],
  };
}

/** One list entry of a field: its rule, or what is wrong with it. Time fields and months yield `days` (values). */
function parsePart(part: string, type: FieldType): CronDayRule | string {
  if (part === '') return 'empty list entry';
  const upper = part.toUpperCase();
  if (type.name === 'day-of-month') {
    if (upper === '?') return { kind: 'any' };
    if (/[LW]/.test(upper)) return lastOrWeekday(upper);
  }
  if (type.name === 'day-of-week') {
    if (upper === '?') return { kind: 'any' };
    if (upper.includes('#')) return nthDay(upper, type);
    if (upper.endsWith('L')) {
      const day = upper.slice(0, -1);
      if (day === '') return '"L" needs a day before it (e.g. 5L or FRIL)';
      const issue = valueIssue(day, type);
      return issue ?? { kind: 'lastOfWeek', weekday: weekday(numberOf(day, type)!) };
    }
  }
  const slash = upper.indexOf('/');
  const range = slash < 0 ? upper : upper.slice(0, slash);
  let step = 1;
  if (slash >= 0) {
    const stepText = upper.slice(slash + 1);
    if (!/^\d+$/.test(stepText) || Number(stepText) === 0) return `step "${stepText}" is not a positive number`;
    step = Number(stepText);
  }
  let from: number;
  let to: number;
  if (range === '*') {
    if (slash < 0 && type.name.startsWith('day-of-')) return { kind: 'any' };
    from = type.first ?? type.min;
    to = type.max;
  } else {
    const dash = range.indexOf('-');
    const fromText = dash < 0 ? range : range.slice(0, dash);
    const toText = dash < 0 ? undefined : range.slice(dash + 1);
    const issue = valueIssue(fromText, type) ?? (toText === undefined ? null : valueIssue(toText, type));
    if (issue) return issue;
    from = numberOf(fromText, type)!;
    // Spring: `5/15` runs from 5 to the end of the field; a single value without a step is just itself.
    to = toText === undefined ? (slash < 0 ? from : type.max) : numberOf(toText, type)!;
    if (from > to) return `range "${range}" runs backwards`;
  }
  const days: number[] = [];
  for (let value = from; value <= to; value += step) {
    days.push(type.name === 'day-of-week' ? weekday(value) : value);
  }
  return { kind: 'days', days };
}

/** Spring's day of the week (0–7, Sunday both 0 and 7) as JavaScript's (0 Sunday … 6 Saturday). */
function weekday(value: number): number {
  return value % 7;
}

/** Day-of-month `L`, `L-3`, `LW`, `15W`. */
function lastOrWeekday(part: string): CronDayRule | string {
  if (part === 'L') return { kind: 'last', offset: 0 };
  if (part === 'LW') return { kind: 'lastWeekday' };
  const offset = /^L-(\d+)$/.exec(part);
  if (offset) {
    return Number(offset[1]) <= 30
      ? { kind: 'last', offset: Number(offset[1]) }
      : `"${part}" reaches before the first of the month`;
  }
  const nearest = /^(\d+)W$/.exec(part);
  if (nearest) {
    const day = Number(nearest[1]);
    return day >= 1 && day <= 31 ? { kind: 'nearestWeekday', day } : `"${part}" is not a day 1–31`;
  }
  return `"${part}" is not L, L-n, LW or nW`;
}

/** Day-of-week `5#2` / `FRI#2`: the n-th such day of the month. */
function nthDay(part: string, type: FieldType): CronDayRule | string {
  const [day = '', nth = ''] = part.split('#');
  const issue = valueIssue(day, type);
  if (issue) return issue;
  if (!/^[1-5]$/.test(nth)) return `"#${nth}" is not an occurrence 1–5`;
  return { kind: 'nthOfWeek', weekday: weekday(numberOf(day, type)!), nth: Number(nth) };
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
