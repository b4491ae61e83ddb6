/**
 * `to json` and `from json` (feel-scala 1.20, through Jackson): numbers stay exact both ways (an
 * integer is read exactly, a fraction as Jackson's double), temporal values are written in their ISO
 * forms, functions and ranges as their text.
 *
 * @module
 */

import { show } from '../eval/show.js';
import { fromBigInt, fromDouble, isNumber, numberToString } from '../number.js';
import { FeelDate } from '../temporal/date.js';
import { FeelDateTime, FeelLocalDateTime } from '../temporal/date-time.js';
import { FeelDaysTimeDuration, FeelYearsMonthsDuration } from '../temporal/duration.js';
import { FeelLocalTime, FeelTime, formatClock, formatOffset } from '../temporal/time.js';
import { FeelContext, FeelFunction, FeelRange, type FeelValue } from '../values.js';
import { type BuiltinTable, builtin, fail } from './define.js';

/** Writes a FEEL value as compact JSON, as feel-scala's `to json` does. */
export function toJson(value: FeelValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (isNumber(value)) return numberToString(value);
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value instanceof FeelContext) {
    return `{${[...value.entries()].map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  }
  if (value instanceof FeelDate || value instanceof FeelLocalDateTime) return JSON.stringify(value.toString());
  if (value instanceof FeelLocalTime) return JSON.stringify(formatClock(value.nanoOfDay));
  if (value instanceof FeelTime)
    return JSON.stringify(formatClock(value.nanoOfDay) + formatOffset(value.offsetSeconds));
  if (value instanceof FeelDateTime) return JSON.stringify(value.toIsoZonedString());
  if (value instanceof FeelDaysTimeDuration || value instanceof FeelYearsMonthsDuration) {
    return JSON.stringify(value.toJavaString());
  }
  if (value instanceof FeelFunction || value instanceof FeelRange) return JSON.stringify(show(value));
  throw new Error(`thresher: cannot write ${show(value)} as JSON`);
}

/** A JSON reader that keeps numbers exact (JSON.parse would round them to doubles). */
class JsonReader {
  private at = 0;

  constructor(private readonly text: string) {}

  read(): FeelValue {
    const value = this.value();
    this.space();
    if (this.at !== this.text.length) throw new SyntaxError('trailing input');
    return value;
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.at] ?? '')) this.at++;
  }

  private value(): FeelValue {
    this.space();
    const c = this.text[this.at];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    const match = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at));
    if (!match) throw new SyntaxError(`unexpected ${c ?? 'end'}`);
    this.at += match[0].length;
    // Jackson reads an integer exactly and any other number as a double.
    if (match[1] === undefined && match[2] === undefined) return fromBigInt(BigInt(match[0]));
    return fromDouble(Number(match[0]));
  }

  private string(): string {
    // JSON.parse reads exactly one JSON string; find where it ends first.
    let end = this.at + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    if (end >= this.text.length) throw new SyntaxError('unterminated string');
    const value = JSON.parse(this.text.slice(this.at, end + 1)) as string;
    this.at = end + 1;
    return value;
  }

  private array(): FeelValue[] {
    this.at++;
    const items: FeelValue[] = [];
    this.space();
    if (this.text[this.at] === ']') {
      this.at++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === ']') return items;
      if (c !== ',') throw new SyntaxError('expected , or ]');
    }
  }

  private object(): FeelContext {
    this.at++;
    const entries = new Map<string, FeelValue>();
    this.space();
    if (this.text[this.at] === '}') {
      this.at++;
      return FeelContext.of(entries);
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      if (this.text[this.at++] !== ':') throw new SyntaxError('expected :');
      entries.set(key, this.value());
      this.space();
      const c = this.text[this.at++];
      if (c === '}') return FeelContext.of(entries);
      if (c !== ',') throw new SyntaxError('expected , or }');
    }
  }
}

const fromJson = (param: string) =>
  builtin([param], ([json]) => {
    if (json === null) return null;
    if (typeof json !== 'string') return undefined;
    try {
      return new JsonReader(json).read();
    } catch {
      return fail(`Failed to parse JSON from '${json}'`);
    }
  });

/** The JSON built-ins. */
export const jsonBuiltins: BuiltinTable = {
  // feel-scala names the parameter `json`; Camunda documents `value`.
  'from json': [fromJson('json'), fromJson('value')],
  'to json': [builtin(['value'], ([value]) => toJson(value!))],
};
