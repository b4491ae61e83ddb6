/**
 * What `thresher` exits with. Scripts branch on these, so they never change meaning.
 *
 * - `Ok` (0): the instance completed or was terminated by a terminate end event; the query ran.
 * - `Failed` (1): an incident, a model error, a restore failure, a missing instance, a message nobody waits for.
 * - `Usage` (2): the command line (or a file, module or answer it names) is unusable.
 * - `Parked` (3): the instance is durable and waits for something the CLI cannot give (a user task, a
 *   message, a signal, a timer due later than `--wait-timers`).
 */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2, Parked: 3 } as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The code that reports the worst of several outcomes: a failure beats a parked instance beats success. */
export function worstExitCode(codes: Iterable<ExitCode>): ExitCode {
  let worst: ExitCode = ExitCode.Ok;
  for (const code of codes) {
    if (code === ExitCode.Usage || code === ExitCode.Failed) return code;
    if (code === ExitCode.Parked) worst = code;
  }
  return worst;
}
