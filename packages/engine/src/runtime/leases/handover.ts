/**
 * Events for an instance another engine holds are handed over through the store's message buffer, which
 * takes each once: a message as itself, a signal as a message addressed to that instance alone.
 */

/** How long a handed-over event is kept at least: its holder takes it on its next look, well within this. */
export const HANDOVER_TTL_MS = 10 * 60_000;

/**
 * The buffer name a signal handed to one instance travels under (keyed by that instance's id). The
 * unit-separator prefix keeps it apart from any message name a model gives.
 */
export function signalInbox(signalName: string): string {
  return `\u001fsignal:${signalName}`;
}
