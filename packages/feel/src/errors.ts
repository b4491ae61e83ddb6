/**
 * The errors `@thresher/feel` throws. Evaluation never throws: its failures are values
 * (`FeelResult`); these are for input that cannot be FEEL at all.
 *
 * @module
 */

const FEEL_ERROR = Symbol.for('thresher.feel.error');

/** Stable error codes of `@thresher/feel`; branch on these, not on messages. */
export const FeelErrorCode = {
  Syntax: 'THRESHER_FEEL_SYNTAX',
  Conversion: 'THRESHER_FEEL_CONVERSION',
} as const;
/** One of {@link FeelErrorCode}. */
export type FeelErrorCode = (typeof FeelErrorCode)[keyof typeof FeelErrorCode];

/** Base class of the errors this package throws. */
export class FeelError extends Error {
  readonly [FEEL_ERROR] = true;
  readonly code: FeelErrorCode;

  constructor(code: FeelErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = new.target.name;
    this.code = code;
  }

  /** Whether `value` is a FeelError, also across duplicate copies of the package. */
  static is(value: unknown): value is FeelError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[FEEL_ERROR] === true;
  }
}

/** A FEEL source that does not parse: what is wrong and where (0-based character offsets, `to` exclusive). */
export class FeelSyntaxError extends FeelError {
  /** The problem without the code and position: `unexpected "else"`. */
  readonly reason: string;

  constructor(
    reason: string,
    readonly source: string,
    readonly from: number,
    readonly to: number,
  ) {
    super(FeelErrorCode.Syntax, `FEEL "${source}" does not parse: ${reason} at character ${from}`);
    this.reason = reason;
  }
}

/** Data that is not a FEEL value (or a FEEL value that is not data), naming where it sits. */
export class FeelConversionError extends FeelError {
  constructor(
    reason: string,
    /** Where in the data: `order.items[2].price`. */
    readonly path: string,
  ) {
    super(FeelErrorCode.Conversion, `${path}: ${reason}`);
  }
}
