/**
 * `@thresher/dmn`: DMN 1.1–1.5 read, checked and compiled once ({@link parseDmn}), evaluated many times
 * ({@link evaluateDecision}, {@link evaluateInvocable}) with Thresher's FEEL — decision tables with every hit
 * policy, boxed expressions, requirement graphs, knowledge models and decision services.
 *
 * @module
 */
export type { FeelUnaryTests, FeelValue } from '@thresher/feel';
export {
  type DecisionInfo,
  type DmnDefinitions,
  type InvocableInfo,
  type ParseOptions,
  parseDmn,
} from './definitions.js';
export { type DmnIssue, DmnModelError } from './errors.js';
export { type DecisionOutcome, evaluateDecision, evaluateInvocable } from './evaluate.js';
export type { EvaluatedDecision, EvaluateOptions } from './run.js';
export { isDmn, readXml, type XmlElement } from './xml.js';
