// What the figures were measured on: CPU, cores, RAM, Node, OS, and the file system SQLite wrote to.
import { readFileSync } from 'node:fs';
import { arch, cpus, release, tmpdir, totalmem, type } from 'node:os';

function osName() {
  try {
    const line = readFileSync('/etc/os-release', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('PRETTY_NAME='));
    if (line) return `${line.slice('PRETTY_NAME='.length).replace(/^"|"$/g, '')} (${type()} ${release()})`;
  } catch {}
  return `${type()} ${release()}`;
}

/** The file system holding `dir` (Linux: the longest matching mount point in /proc/mounts). */
function fileSystemOf(dir) {
  try {
    let best = null;
    for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, mount, fsType] = line.split(' ');
      if (mount && dir.startsWith(mount) && (!best || mount.length > best.mount.length)) {
        best = { device, mount, fsType };
      }
    }
    return best ? `${best.fsType} (${best.device} on ${best.mount})` : 'unknown';
  } catch {
    return 'unknown';
  }
}

export function describeMachine() {
  const cpu = cpus();
  const scratch = process.env.BENCH_TMPDIR ?? tmpdir();
  return {
    cpu: cpu[0]?.model?.trim() ?? 'unknown',
    cores: cpu.length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: osName(),
    arch: arch(),
    scratch: `${scratch} on ${fileSystemOf(scratch)}`,
  };
}
