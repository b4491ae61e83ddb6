/**
 * Variables set from outside the model, as Zeebe's SetVariables sets them: from the root scope, or from a live
 * element activation outwards — each where it is held (the activation's own locals or its sub-process's scope first),
 * else in the root — or, `local`, on the activation itself: its sub-process's scope, or its element's locals.
 */
import type { TrackRecord, Variables } from '@thresher/checkpoint';
import type { StepContext } from './context.js';
import { elementInstanceId } from './event-ids.js';
import type { InstanceEventOf } from './instance-event.js';
import type { InstanceState } from './state.js';

export function setVariables(ctx: StepContext, event: InstanceEventOf<'variables.set'>): void {
  const { state } = ctx;
  const track = event.elementInstanceId === null ? undefined : liveActivation(state, event.elementInstanceId);
  // Checked before the event was submitted; an activation gone since takes nothing.
  if (event.elementInstanceId !== null && track === undefined) return;
  const own = track === undefined ? state.scope('/') : [...state.scopes.values()].find((s) => s.hostTrack === track.id);
  if (event.local) {
    if (own !== undefined) Object.assign(own.data, event.variables);
    else track!.locals = { ...track!.locals, ...event.variables };
    return;
  }
  const outer: Variables = {};
  for (const [name, value] of Object.entries(event.variables)) {
    if (own === undefined && track?.locals && Object.hasOwn(track.locals, name)) track.locals[name] = value;
    else outer[name] = value;
  }
  state.propagate(own?.path ?? track!.scopePath, outer);
}

/** The live track in the activation an id names (`elementInstanceId`), if one is. */
export function liveActivation(state: InstanceState, id: string): TrackRecord | undefined {
  for (const track of state.tracks.values()) if (elementInstanceId(track) === id) return track;
  return undefined;
}
