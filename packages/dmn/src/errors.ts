/**
 * What goes wrong with a DMN file: a model error (read and checked once, at parse time) carries every issue,
 * each naming its element.
 *
 * @module
 */

/** One problem of a DMN model, naming where it is. */
export interface DmnIssue {
  elementId?: string;
  /** The DMN element's type, `dmn:decision`, `dmn:inputEntry`… */
  elementType?: string;
  message: string;
  line?: number;
}

/** A DMN file that cannot be deployed: every issue found, the first one as the message. */
export class DmnModelError extends Error {
  readonly code = 'DMN_MODEL';

  constructor(readonly issues: DmnIssue[]) {
    const [first] = issues;
    const where = first?.elementId ? `${first.elementType ?? 'element'} "${first.elementId}": ` : '';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(`${where}${first?.message ?? 'invalid DMN'}${more}`);
    this.name = 'DmnModelError';
  }
}

/** A decision that cannot be evaluated; the message names the decision and why. @internal */
export class DmnEvaluationError extends Error {
  constructor(
    message: string,
    /** The decision (or knowledge model, or service) being evaluated when it failed. */
    readonly decisionId: string | null = null,
  ) {
    super(message);
    this.name = 'DmnEvaluationError';
  }
}
