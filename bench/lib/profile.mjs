// A CPU profile of a section of this process through node:inspector (Profiler.start/stop), in the
// `.cpuprofile` format Chrome DevTools and VS Code open.
import { Session } from 'node:inspector';

function post(session, method, params) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

/** Start profiling; `stop()` resolves the profile object (write it as JSON to a `.cpuprofile` file). */
export async function startProfile({ samplingIntervalUs = 200 } = {}) {
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: samplingIntervalUs });
  await post(session, 'Profiler.start');
  return {
    async stop() {
      const { profile } = await post(session, 'Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

/**
 * The functions with the most self time in a profile, largest first, so the report can name hot spots with
 * evidence: `{ idleShare, totalMs, top: [{ name, where, selfMs, share }], packages: [{ name, selfMs, share }] }`. Idle time (waiting on I/O: an fsync, a
 * database round trip) is left out of `top` and reported as `idleShare`; shares are of all sampled time.
 */
export function topSelfTime(profile, limit = 12) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, index) => {
    self.set(id, (self.get(id) ?? 0) + (deltas[index] ?? 0));
  });
  const byFunction = new Map();
  const byPackage = new Map();
  let total = 0;
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id);
    const file = callFrame.url ? callFrame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '') : '';
    const shortFile = file.includes('/packages/') ? file.slice(file.indexOf('/packages/') + 1) : file;
    const key = `${callFrame.functionName || '(anonymous)'}\u0000${shortFile}:${callFrame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    const where = packageOf(shortFile, callFrame.functionName);
    byPackage.set(where, (byPackage.get(where) ?? 0) + micros);
    total += micros;
  }
  const idle = [...byFunction].filter(([key]) => key.startsWith('(idle)\u0000')).reduce((sum, [, m]) => sum + m, 0);
  const top = [...byFunction]
    .filter(([key]) => !key.startsWith('(idle)\u0000'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([key, micros]) => {
      const [name, where] = key.split('\u0000');
      return { name, where, selfMs: micros / 1000, share: total ? micros / total : 0 };
    });
  const packages = [...byPackage]
    .filter(([name]) => name !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, micros]) => ({ name, selfMs: micros / 1000, share: total ? micros / total : 0 }));
  return { idleShare: total ? idle / total : 0, totalMs: total / 1000, top, packages };
}

/** `xstate`, `@lezer/lr`, `packages/engine` …, or the V8 pseudo-function (`(garbage collector)`) / node builtin. */
function packageOf(file, functionName) {
  if (!file) return functionName?.startsWith('(') ? functionName : '(native)';
  if (file.startsWith('packages/')) return file.split('/').slice(0, 2).join('/');
  if (file.startsWith('node:')) return 'node internals';
  const parts = file.split('/');
  if (parts[0].startsWith('@')) return `${parts[0]}/${parts[1]}`;
  return parts[0];
}
