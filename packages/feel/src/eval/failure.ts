/**
 * Where feel-scala's evaluation throws a Java exception (an arithmetic overflow, a date out of range,
 * an index out of bounds in `substring`), the whole evaluation fails: feel-scala catches it at the top
 * and returns a failure. Thresher throws this inside and catches it the same way.
 *
 * @module
 */

/** A Java exception feel-scala would meet here. @internal */
export class JavaException extends Error {
  constructor(
    /** The Java class name, for the message: `ArithmeticException`. */
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
    this.name = 'JavaException';
  }

  /** Java's `Throwable.toString()`: `java.lang.ArithmeticException: / by zero`. */
  override toString(): string {
    return `${this.javaClass}: ${this.message}`;
  }
}
