import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Who holds a lease: `<host>:<pid>:<nonce>` names one engine of one process. The nonce tells apart two
 * engines of one process (and a process that reused a dead one's pid).
 */
const HOST = hostname();

/** Engines of this process that are alive: an owner of this process not listed here is gone. */
const alive = new Set<string>();

export function newOwner(): string {
  return `${HOST}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function ownerAlive(owner: string): void {
  alive.add(owner);
}

/**
 * The engine named `owner` (`engine.owner`) is gone from this process: closed, or abandoned as a killed process
 * would be (`simulateCrash` and `KillSwitch` of `@thresher/testing` say so). Another engine of this process may
 * then take its leases over at once instead of waiting them out: never say it of an engine still running.
 */
export function ownerGone(owner: string): void {
  alive.delete(owner);
}

/**
 * True when `owner` is known to be gone: an engine of this host whose process has exited, or of this
 * process that is no longer alive. An owner of another host, or not named as Thresher names owners, is
 * never known gone: its lease is waited out.
 */
export function isGone(owner: string): boolean {
  const parts = /^(.*):(\d+):([^:]+)$/.exec(owner);
  if (!parts || parts[1] !== HOST) return false;
  const pid = Number(parts[2]);
  if (pid === process.pid) return !alive.has(owner);
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: a live process of another user holds that pid.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
