import type { Variables } from '@thresher/checkpoint';
import type { LiveTouchpoint, Operator, OperatorAnswer, OperatorQuestion } from '@thresher/engine';
import { toJson } from '../output.js';
import type { Session } from '../session.js';
import {
  briefingWindow,
  type ChoiceContext,
  choiceWindow,
  colourWanted,
  timeLeft,
  type WindowStyle,
  windowWidth,
} from './window.js';

/**
 * The person at the terminal, as the engine's `Operator` seam sees one: shown the briefing before a run
 * (`Continue? [y/N]`) and each user task as a numbered choice (`Choose [1-N]`). It reads one line per
 * answer and writes back what it understood, so a transcript reads as a dialogue.
 *
 * @module
 */

/** What the terminal operator reads from, writes to, and draws with. */
export interface TerminalOperatorOptions {
  /** The next line typed, without its newline; undefined at end of input; rejects when `signal` aborts. */
  readLine(signal?: AbortSignal): Promise<string | undefined>;
  /** Writes what a person is shown, as is (prompts end without a newline). */
  show(text: string): void;
  /** Holds other output while a window is up; the returned function releases it. */
  hold(): () => void;
  /** The width and title style of the next window (asked each time: the terminal may have been resized). */
  style(): WindowStyle;
  /** Now, on the clock question due times are on. */
  now(): number;
  /** Approve every briefing without asking, and what said so (`--yes`, `THRESHER_YES`); undefined: ask. */
  approvedBy?: string | undefined;
}

/** How the briefing ended: `ended` when the input ended before an answer (read as no). */
export type BriefingAnswer = 'approved' | 'declined' | 'ended';

/**
 * What the person did at a choice: answered (an option id, or variables when the task has no options),
 * stopped (`q`), let the input end, or had the question withdrawn under them (`stop()`, the caller's signal).
 */
export type ChoiceReply =
  | { kind: 'answer'; answer: string | Variables }
  | { kind: 'stop' }
  | { kind: 'ended' }
  | { kind: 'withdrawn' };

/** What `ask` needs besides the question. */
export interface AskContext {
  /** The N of "TOUCHPOINT i of N"; default the size of the last briefing. */
  total?: number;
  /** The user task's name, for a task whose touchpoint has no label. */
  name?: string | null;
  /** Withdraws the question (the task was cancelled, its timer fired). */
  signal?: AbortSignal;
}

const WITHDRAWN = Symbol('withdrawn');

/** Whether `THRESHER_YES` approves: set, not empty, not `0` or `false`. */
export function envApproves(value: string | undefined): boolean {
  if (value === undefined) return false;
  const text = value.trim().toLowerCase();
  return text !== '' && text !== '0' && text !== 'false';
}

/** A terminal operator; see the module comment. `approve` and `choose` are the engine's contract. */
export class TerminalOperator implements Operator {
  private total: number | undefined;
  /** Aborted by `stop()`: every question open then is withdrawn. */
  private stopping = new AbortController();

  constructor(private readonly options: TerminalOperatorOptions) {}

  async approve(touchpoints: readonly LiveTouchpoint[]): Promise<boolean> {
    return (await this.brief(touchpoints)) === 'approved';
  }

  async choose(question: OperatorQuestion): Promise<OperatorAnswer> {
    const reply = await this.ask(question);
    return reply.kind === 'answer' ? reply.answer : null;
  }

  /** Withdraws the question open now, if any; later questions are asked as usual. */
  stop(): void {
    this.stopping.abort(WITHDRAWN);
    this.stopping = new AbortController();
  }

  /** The briefing, then `Continue? [y/N]`: only `y` or `yes` approves. */
  async brief(touchpoints: readonly LiveTouchpoint[]): Promise<BriefingAnswer> {
    const { show, approvedBy } = this.options;
    this.total = touchpoints.length;
    const release = this.options.hold();
    try {
      show(briefingWindow(touchpoints, this.options.style()));
      if (approvedBy !== undefined) {
        show(`Approved by ${approvedBy}.\n`);
        return 'approved';
      }
      show('Continue? [y/N]: ');
      const line = await this.read();
      if (line === WITHDRAWN || line === undefined) {
        show('\nNot approved: no answer.\n');
        return 'ended';
      }
      const approved = ['y', 'yes'].includes(line.trim().toLowerCase());
      show(approved ? 'Approved.\n' : 'Not approved.\n');
      return approved ? 'approved' : 'declined';
    } finally {
      release();
    }
  }

  /**
   * The choice window, then `Choose [1-N]` until a number in range or `q`; for a task with no options, one
   * JSON object line. Anything else is asked again, saying what is expected.
   */
  async ask(question: OperatorQuestion, context: AskContext = {}): Promise<ChoiceReply> {
    const { show, now } = this.options;
    const total = context.total ?? this.total;
    const window: ChoiceContext = { now: now(), name: context.name ?? null, ...(total === undefined ? {} : { total }) };
    const release = this.options.hold();
    try {
      show(choiceWindow(question, window, this.options.style()));
      for (;;) {
        const left = timeLeft(question, now());
        const hint = `${left === undefined ? '' : `${left}, `}q to stop`;
        const count = question.options.length;
        show(count > 0 ? `Choose [1-${count}] (${hint}): ` : `Variables as JSON (${hint}): `);
        const line = await this.read(context.signal);
        if (line === WITHDRAWN) {
          show('\nNo longer asked: the task was closed while it waited.\n');
          return { kind: 'withdrawn' };
        }
        if (line === undefined) {
          show('\n');
          return { kind: 'ended' };
        }
        const text = line.trim();
        if (text.toLowerCase() === 'q') {
          show('Stopped.\n');
          return { kind: 'stop' };
        }
        const reply = count > 0 ? this.numbered(question, text) : this.variables(text);
        if (reply.kind === 'answer') return reply;
        show(`${reply.retry}\n`);
      }
    } finally {
      release();
    }
  }

  private numbered(
    question: OperatorQuestion,
    text: string,
  ): { kind: 'answer'; answer: string } | { kind: 'retry'; retry: string } {
    const count = question.options.length;
    const option = /^[0-9]+$/.test(text) ? question.options[Number(text) - 1] : undefined;
    if (option === undefined) return { kind: 'retry', retry: `Enter a number from 1 to ${count}, or q to stop.` };
    this.options.show(`Chosen: ${Number(text)} ${option.label}\n`);
    return { kind: 'answer', answer: option.id };
  }

  private variables(text: string): { kind: 'answer'; answer: Variables } | { kind: 'retry'; retry: string } {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { kind: 'retry', retry: 'Enter one JSON object on one line, e.g. {"approved": true}, or q to stop.' };
    }
    this.options.show(`Entered: ${toJson(value)}\n`);
    return { kind: 'answer', answer: value as Variables };
  }

  /** The next line, or WITHDRAWN when `stop()` or the caller's signal withdrew the question first. */
  private async read(signal?: AbortSignal): Promise<string | undefined | typeof WITHDRAWN> {
    const signals = [this.stopping.signal, ...(signal ? [signal] : [])];
    const any = AbortSignal.any(signals);
    try {
      return await this.options.readLine(any);
    } catch (error) {
      if (any.aborted) return WITHDRAWN;
      throw error;
    }
  }
}

/**
 * The terminal operator of a command's session: it reads the session's stdin lines, shows on its output's
 * screen (holding progress while a window is up), and approves without asking under `--yes` (`yes`) or
 * `THRESHER_YES`.
 */
export function createTerminalOperator(session: Session, yes: boolean): TerminalOperator {
  const { io, out } = session;
  const approvedBy = yes ? '--yes' : envApproves(io.env.THRESHER_YES) ? 'THRESHER_YES' : undefined;
  return new TerminalOperator({
    readLine: (signal) => session.lines().next(signal),
    show: (text) => out.show(text),
    hold: () => out.hold(),
    style: () => ({
      // A pty nobody sized reports no width; $COLUMNS, when the shell exports it, is the next best guess.
      width: windowWidth(out.screen.columns || Number(io.env.COLUMNS) || undefined),
      bold: colourWanted(io.env, io.isTTY),
    }),
    now: () => io.clock.now(),
    approvedBy,
  });
}
