/**
 * @module @thresher/testing
 *
 * Kill-and-resume testing: fixtures (`.fixture.yaml` files or `defineFixture` specs) run uninterrupted,
 * then killed at every persist point and recovered on a new engine, with the ends compared; the virtual
 * clock they run on; and the lower-level kill switch. It uses the engine's public API only.
 */
export type { Repository, Variables } from '@thresher/checkpoint';
export type { Engine } from '@thresher/engine';
export { simulateCrash } from './crash.js';
export { defineFixture, type FixtureSpec, runFixture } from './fixture/define.js';
export type { DriverHost, DriverState, RestartMove } from './fixture/driver.js';
export { handlerChanges, MoveDriver } from './fixture/driver.js';
export { COMPARED_FIELDS, ElementEntries, observe } from './fixture/end-state.js';
export { fileStoppedMessage, stoppedMessageId } from './fixture/execute.js';
export type { ExpectationFailure } from './fixture/expectations.js';
export { checkExpectations } from './fixture/expectations.js';
export type { HandlerCallCounts } from './fixture/handler-calls.js';
export { countCalls } from './fixture/handler-calls.js';
export { fixtureHandlers, loadHandlersModule } from './fixture/handlers.js';
export { loadFixture, parseFixture } from './fixture/load-fixture.js';
export { fixtureSchema } from './fixture/load-schema.js';
export type {
  Execution,
  FixtureEnd,
  FixtureReport,
  HandlerRunReport,
  KillFailure,
  RunFixtureOptions,
} from './fixture/run-fixture.js';
export {
  countRepeats,
  executeFixture,
  firstDifference,
  killFailureOf,
  killPoints,
  runLoadedFixture,
  startReport,
} from './fixture/run-fixture.js';
export type {
  CountExpectation,
  ElementScript,
  Expectations,
  Fixture,
  HandlerChange,
  HandlerScript,
  HistoryExpectation,
  KillPlan,
  Move,
  StoppedMove,
  TaskEnd,
  TaskExpectation,
  WaitExpectation,
} from './fixture/types.js';
export { FixtureError } from './fixture/types.js';
export { KillSwitch } from './kill-switch.js';
export { type ClockView, VirtualClock } from './virtual-clock.js';
