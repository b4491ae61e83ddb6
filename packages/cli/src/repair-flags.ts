/** The flags the repair commands share: element pairs (`--map A=B`, `--move A=B`) and a target version (`--to P:V`). */
import { UsageError } from './errors.js';

/** Each `SOURCE=TARGET` of a flag, refused by name when it is not one pair of element ids. */
export function readPairs(
  values: readonly string[] | undefined,
  flag: string,
  usage: string,
): { sourceElementId: string; targetElementId: string }[] {
  return (values ?? []).map((text) => {
    const [sourceElementId, targetElementId, ...rest] = text.split('=');
    if (!sourceElementId || !targetElementId || rest.length > 0) {
      throw new UsageError(`${flag} ${JSON.stringify(text)}: expected SOURCE=TARGET (element ids)`, usage);
    }
    return { sourceElementId, targetElementId };
  });
}

/** `--to PROCESS[:VERSION]`, or undefined when not given. */
export function readTarget(
  text: string | undefined,
  usage: string,
): { processId: string; version: number | undefined } | undefined {
  if (text === undefined) return undefined;
  const match = /^([^:]+)(?::(\d+))?$/.exec(text);
  if (match === null) throw new UsageError(`--to ${JSON.stringify(text)}: expected PROCESS or PROCESS:VERSION`, usage);
  return { processId: match[1]!, version: match[2] === undefined ? undefined : Number(match[2]) };
}
