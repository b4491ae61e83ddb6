import type { Engine } from '@thresher/engine';
import { ownerGone } from '@thresher/engine';

/**
 * Treat `engine` as a process that was killed: nothing is stopped or released, but another engine of this
 * process may take over its instances at once, as one would those of a process that exited. Without it, a
 * second engine waits out the first one's leases (`InstanceHeldError`), because the first is still alive.
 * Do not use `engine` afterwards. `KillSwitch` does this itself for the engines that claimed through it.
 */
export function simulateCrash(engine: Engine): void {
  ownerGone(engine.owner);
}
