/**
 * What `thresher` exits with. Scripts branch on these, so they never change meaning.
 *
 * - `Ok` (0): the instance completed or was terminated by a terminate end event; the query ran.
 * - `Failed` (1): an incident, a model error, a restore failure, a missing instance, a message nobody waits for.
 * - `Usage` (2): the command line (or a file, module or answer it names) is unusable, a `--choose` value
 *   included.
 * - `Parked` (3): the instance is durable and waits for something the CLI cannot give (a user task, a
 *   message, a signal, a timer due later than `--wait-timers`), or the input ended while it was asked.
 * - `NotApproved` (4): the operator did not approve the briefing (`Continue? [y/N]`); `run` started nothing.
 * - `Stopped` (5): the operator stopped at a choice (`q`); the instance is durable and parked.
 */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2, Parked: 3, NotApproved: 4, Stopped: 5 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Worst first: what went wrong beats what a person decided, which beats what merely waits. A failure or
 * a usage error ends the search (the first one found is reported).
 */
const SEVERITY: readonly ExitCode[] = [ExitCode.NotApproved, ExitCode.Stopped, ExitCode.Parked, ExitCode.Ok];

/**
 * The code that reports the worst of several outcomes: a failure (or usage error) beats not approved,
 * which beats stopped at a choice, which beats parked, which beats success.
 */
export function worstExitCode(codes: Iterable<ExitCode>): ExitCode {
  let worst: ExitCode = ExitCode.Ok;
  for (const code of codes) {
    if (code === ExitCode.Usage || code === ExitCode.Failed) return code;
    if (SEVERITY.indexOf(code) < SEVERITY.indexOf(worst)) worst = code;
  }
  return worst;
}
