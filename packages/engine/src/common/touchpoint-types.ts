/**
 * The touchpoint vocabulary every layer shares: what a model marks (`thresher:touchpoint`), the static list a
 * plan holds, and a touchpoint's live state as events publish it (docs: packages/engine/README.md § Touchpoints).
 *
 * @module
 */
import type { TouchpointRecord } from '@thresher/checkpoint';

/**
 * Who acts, and which way: `inbound` an outside system calls the engine (a message or signal it waits
 * for), `outbound` the engine calls a system that must be ready (a job's handler), `internal` a person
 * decides (a user task, a manual task).
 */
export type TouchpointDirection = 'inbound' | 'outbound' | 'internal';

/** `select` for a person's choice (internal), `wait` for everything else; derived from the direction. */
export type TouchpointKind = 'wait' | 'select';

/**
 * How the touchpoint is reached: an inbound one by the API the outside system calls (`message`, `signal`),
 * an outbound one by the handler of its job (`job`, else null); an internal one has none.
 */
export type TouchpointVia = 'message' | 'signal' | 'job' | null;

/** What `thresher:touchpoint` says on an element (absent attributes are undefined). */
export interface TouchpointMark {
  /** `enabled="false"`: not a touchpoint, whatever its type declares. */
  enabled?: boolean;
  label?: string;
  description?: string;
  /** Only on an element whose type declares no direction. */
  direction?: TouchpointDirection;
}

/** One touchpoint of a process, as the static list has it, in run order. */
export interface Touchpoint {
  /** Its place in the list: what live updates name it by. */
  index: number;
  processId: string;
  /** The containers down to the element: `/sub_1/task_3`. */
  position: string;
  elementId: string;
  /** The element's type as the compiled model names it (`NodeType`: `userTask`, `receiveTask`, …). */
  elementType: string;
  direction: TouchpointDirection;
  kind: TouchpointKind;
  via: TouchpointVia;
  /** The mark's label, else the element's name; null when it still holds an unresolved expression (`=…`). */
  label: string | null;
  /** The mark's description, else the element's documentation; null as for `label`. */
  description: string | null;
  /** From a boundary timer's duration (or an event-based gateway's timer), else null: it waits durably. */
  timeoutS: number | null;
  /** Only on some paths (after a gateway's branch, a boundary event, in an event sub-process). */
  conditional: boolean;
  /** Can be asked more than once (inside a loop, a multi-instance body, a flow cycle). */
  repeated: boolean;
  /** Listed after the others because its process was left out (`touchpoints(model, { skip })`). */
  skipped: boolean;
}

export type TouchpointState = TouchpointRecord['state'];

/** A touchpoint's state in one instance, as published (the checkpoint's record without its bookkeeping). */
export type TouchpointProgress = Omit<TouchpointRecord, 'open' | 'pausedAt' | 'pausedMs'>;

export type LiveTouchpoint = Touchpoint & TouchpointProgress;
