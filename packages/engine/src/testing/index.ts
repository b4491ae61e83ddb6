/**
 * @module @thresher/engine/testing
 *
 * Kill-and-resume helpers: run a scenario uninterrupted, then killed at a persist point and recovered on a
 * new engine, and compare the ends.
 */

export type { EndState, KilledOutcome, KillScenario, RunOutcome } from './kill-resume.js';
export { runKilledAt, runUninterrupted } from './kill-resume.js';
export { KillSwitch } from './kill-switch.js';
