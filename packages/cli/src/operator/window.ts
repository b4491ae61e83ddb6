import type {
  ChoiceOption,
  ChoiceSource,
  LiveTouchpoint,
  OperatorQuestion,
  TouchpointDirection,
} from '@thresher/engine';

/**
 * The windows the terminal operator draws: the briefing before a run and the choice at a user task.
 * Pure: text in, text out, at a width and a style the caller decides (`windowStyle`).
 *
 * Pure ASCII frames (`=` rules, a `-` divider, `...` for a cut row) so a transcript, a log file or a
 * dumb terminal shows them as a colour terminal does; only the title row may be bold.
 *
 * @module
 */

/** How wide a window is drawn and whether its title row is bold. */
export interface WindowStyle {
  /** Columns, already clamped (`windowWidth`). */
  width: number;
  bold: boolean;
}

/** The narrowest and widest window, and the width when the terminal's is unknown. */
export const WINDOW_WIDTH = { min: 60, max: 100, fallback: 80 } as const;

const ELLIPSIS = '...';
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** The terminal's columns clamped to 60–100; 80 when unknown (not a terminal, or a pty that says 0). */
export function windowWidth(columns: number | undefined): number {
  if (columns === undefined || !Number.isFinite(columns) || columns <= 0) return WINDOW_WIDTH.fallback;
  return Math.min(WINDOW_WIDTH.max, Math.max(WINDOW_WIDTH.min, Math.floor(columns)));
}

/**
 * Whether the title row may be bold: never with `NO_COLOR` (any value, see no-color.org), always with
 * `FORCE_COLOR` (unless `0` or `false`, as Node reads it), else only on a terminal.
 */
export function colourWanted(env: Readonly<Record<string, string | undefined>>, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return isTTY;
}

/** Characters, not UTF-16 units, so a cut never splits a surrogate pair. */
const chars = (text: string): string[] => Array.from(text);

/** The row as is when it fits in `width`, else cut with `...`. */
export function cut(row: string, width: number): string {
  const all = chars(row);
  if (all.length <= width) return row;
  return `${all.slice(0, Math.max(0, width - ELLIPSIS.length)).join('')}${ELLIPSIS}`;
}

/**
 * A paragraph wrapped at word boundaries into rows of at most `width`, each starting with `indent`;
 * a word longer than a row is cut.
 */
export function wrap(text: string, indent: string, width: number): string[] {
  const room = Math.max(1, width - indent.length);
  const rows: string[] = [];
  let row = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    const candidate = row === '' ? word : `${row} ${word}`;
    if (chars(candidate).length <= room) {
      row = candidate;
      continue;
    }
    if (row !== '') rows.push(row);
    row = cut(word, room);
  }
  if (row !== '') rows.push(row);
  return rows.map((line) => `${indent}${line}`);
}

/**
 * How long is left, for people, to the second: `45s`, `4m 52s`, `1m 00s`, `2h 05m`, `3d 04h`. Rounded
 * down, so the time shown is never more than there is.
 */
export function countdown(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const two = (value: number): string => String(value).padStart(2, '0');
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${two(seconds % 60)}s`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ${two(Math.floor(seconds / 60) % 60)}m`;
  return `${Math.floor(seconds / 86_400)}d ${two(Math.floor(seconds / 3600) % 24)}h`;
}

/**
 * A window: a `=` rule, the title row (with `right` flush right, when given), a `-` divider, the body
 * rows (each cut to the width), a `=` rule. Ends with a newline.
 */
export function drawWindow(
  title: string,
  right: string | undefined,
  body: readonly string[],
  style: WindowStyle,
): string {
  const { width } = style;
  const left = `  ${title}`;
  // The right part ends two columns short of the rule, mirroring the two-column indent on the left.
  const gap = right === undefined ? 0 : width - 2 - chars(left).length - chars(right).length;
  let head = right === undefined ? left : gap >= 2 ? `${left}${' '.repeat(gap)}${right}` : `${left}  ${right}`;
  head = cut(head, width);
  if (style.bold) head = `${BOLD}${head}${RESET}`;
  const rule = '='.repeat(width);
  return `${[rule, head, '-'.repeat(width), ...body.map((row) => cut(row, width)), rule].join('\n')}\n`;
}

/** Who acts at a touchpoint of each direction, as the briefing says it. */
export const WHO_ACTS: Record<TouchpointDirection, string> = {
  inbound: 'your system calls us',
  outbound: 'we call your system',
  internal: 'you choose',
};

/** What a touchpoint is called in a window: its label, else its element id. */
export const touchpointLabel = (touchpoint: LiveTouchpoint): string => touchpoint.label ?? touchpoint.elementId;

/**
 * The briefing: every touchpoint the run will stop at, in run order: its label, then its number,
 * element, direction and who acts, then what else a person should know before saying yes.
 */
export function briefingWindow(touchpoints: readonly LiveTouchpoint[], style: WindowStyle): string {
  const numberWidth = String(touchpoints.length).length;
  const idWidth = Math.max(0, ...touchpoints.map((touchpoint) => chars(touchpoint.elementId).length));
  const detailIndent = ' '.repeat(4 + numberWidth + 2);
  const body: string[] = [];
  touchpoints.forEach((touchpoint, position) => {
    const number = String(position + 1).padStart(numberWidth);
    const element = touchpoint.elementId.padEnd(idWidth);
    body.push(`  ${touchpointLabel(touchpoint)}`);
    body.push(`    ${number}  ${element}  ${touchpoint.direction} | ${WHO_ACTS[touchpoint.direction]}`);
    const details = [
      touchpoint.state === 'now' ? 'waiting now' : null,
      touchpoint.skipped ? 'skipped' : null,
      touchpoint.timeoutS !== null ? `${countdown(touchpoint.timeoutS * 1000)} to answer` : null,
      touchpoint.conditional ? 'only on some paths' : null,
      touchpoint.repeated ? 'may repeat' : null,
      touchpoint.description,
    ].filter((detail): detail is string => detail !== null && detail.trim() !== '');
    if (details.length > 0) body.push(...wrap(details.join(' | '), detailIndent, style.width));
  });
  const count = touchpoints.length === 1 ? '1 TOUCHPOINT' : `${touchpoints.length} TOUCHPOINTS`;
  return drawWindow(`THIS RUN NEEDS YOU AT ${count}`, undefined, body, style);
}

/** Where the options of a choice come from, as the window's last row says it. */
export const OPTION_SOURCE: Record<ChoiceSource, string> = {
  form: "The options come from the task's form.",
  gateway: 'The options come from the conditions after the task.',
  variables: 'No options: enter the variables to complete the task with, as one JSON object.',
};

/** What the choice window needs besides the question. */
export interface ChoiceContext {
  /** How many touchpoints the instance has: the N of "TOUCHPOINT i of N"; unknown: the title says less. */
  total?: number;
  /** The user task's name, shown when the touchpoint has no label (or the task is no touchpoint). */
  name?: string | null;
  /** Now, on the clock `question.dueAt` is on. */
  now: number;
}

/** `4m 52s left` when the question has a due time, else undefined. */
export function timeLeft(question: OperatorQuestion, now: number): string | undefined {
  return question.dueAt === null ? undefined : `${countdown(question.dueAt - now)} left`;
}

/** `1  Approve`, numbered from 1 and right-aligned to the widest number. */
export function optionRows(options: readonly ChoiceOption[]): string[] {
  const numberWidth = String(options.length).length;
  return options.map((option, position) => `     ${String(position + 1).padStart(numberWidth)}  ${option.label}`);
}

/** The choice window: which touchpoint, its label, the numbered options and where they come from. */
/** The task's fields as its listeners left them (the ones set), and the last transition they denied. */
function taskLines(question: OperatorQuestion): string[] {
  const { task } = question;
  const parts: string[] = [];
  if (task.assignee) parts.push(`assignee ${task.assignee}`);
  if (task.candidateGroups.length > 0) parts.push(`groups ${task.candidateGroups.join(', ')}`);
  if (task.candidateUsers.length > 0) parts.push(`users ${task.candidateUsers.join(', ')}`);
  if (task.priority !== 50) parts.push(`priority ${task.priority}`);
  if (task.dueDate) parts.push(`due ${task.dueDate}`);
  const lines = parts.length > 0 ? [`  ${parts.join(' · ')}`] : [];
  if (task.denied) {
    const why = task.denied.reason ? `: ${task.denied.reason}` : '';
    lines.push(`  its last ${task.denied.event} was denied by a task listener${why}`);
  }
  return lines;
}

export function choiceWindow(question: OperatorQuestion, context: ChoiceContext, style: WindowStyle): string {
  const { touchpoint } = question;
  const where =
    touchpoint !== null && context.total !== undefined
      ? `TOUCHPOINT ${touchpoint.index + 1} of ${context.total}`
      : touchpoint !== null
        ? `TOUCHPOINT ${touchpoint.index + 1}`
        : 'USER TASK';
  const label = touchpoint?.label ?? context.name ?? question.elementId;
  const body = [`  ${label}`, `  ${question.elementId} in instance ${question.instanceId}`, ...taskLines(question), ''];
  if (question.options.length > 0) body.push(...optionRows(question.options), '');
  // No options to number means JSON is asked for, whatever the source was meant to give.
  const source = question.options.length > 0 ? question.source : 'variables';
  body.push(...wrap(OPTION_SOURCE[source], '  ', style.width));
  return drawWindow(`${where} | YOU CHOOSE`, timeLeft(question, context.now), body, style);
}
