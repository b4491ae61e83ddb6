/**
 * @module @thresher/engine/testing
 *
 * Kill-and-resume testing: fixtures (`.fixture.yaml` files or `defineFixture` specs) run uninterrupted,
 * then killed at every persist point and recovered on a new engine, with the ends compared; the virtual
 * clock they run on; and the lower-level kill switch.
 */
export { simulateCrash } from './crash.js';
export * from './fixture/index.js';
export { KillSwitch } from './kill-switch.js';
export type { ClockView } from './virtual-clock.js';
export { VirtualClock } from './virtual-clock.js';
