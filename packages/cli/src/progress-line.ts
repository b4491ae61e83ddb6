import type { CliIo } from './io.js';
import type { Output } from './output.js';

/** How often the line is redrawn at most, in ms of the CLI's clock. */
const REDRAW_MS = 100;

/**
 * A status line a long command redraws in place on a terminal — `label done/total, rate/s, detail` — so a
 * person sees it move; written nowhere else (not under `--json`, not into a pipe or a log file).
 */
export class ProgressLine {
  readonly #started: number;
  #drawn = Number.NEGATIVE_INFINITY;
  #shown = false;

  constructor(
    private readonly io: CliIo,
    private readonly out: Output,
    private readonly label: string,
  ) {
    this.#started = io.clock.now();
  }

  /** Redraws the line (at most every 100 ms unless `force`). */
  update(done: number, total: number | undefined, detail = '', force = false): void {
    if (!this.io.isTTY || this.out.json) return;
    const now = this.io.clock.now();
    if (!force && now - this.#drawn < REDRAW_MS) return;
    this.#drawn = now;
    const seconds = (now - this.#started) / 1000;
    const rate = seconds > 0 ? `, ${formatRate(done / seconds)}/s` : '';
    const count = total === undefined ? `${done}` : `${done}/${total}`;
    this.io.stderr.write(`\r\u001b[K${this.label} ${count}${rate}${detail ? ` · ${detail}` : ''}`);
    this.#shown = true;
  }

  /** Clears the line, so what is printed next starts on a clean one. */
  end(): void {
    if (this.#shown) this.io.stderr.write('\r\u001b[K');
    this.#shown = false;
  }
}

function formatRate(rate: number): string {
  return rate >= 100 ? `${Math.round(rate)}` : rate.toFixed(rate >= 10 ? 1 : 2);
}
