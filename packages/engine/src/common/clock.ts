/** The clock the engine reads and schedules with: the only time the core and runtime see (tests inject a virtual one). */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
