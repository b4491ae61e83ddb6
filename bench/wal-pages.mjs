// Pages a persist point writes on SQLite, counted from the WAL (issue 60): N sequential instances of the
// throughput model on a fresh file with WAL checkpoints off, the WAL's frames before and after ÷ the persist
// points. `node bench/wal-pages.mjs [N]`.
import { statSync } from 'node:fs';
import { thresherHandlers, throughputModel } from './lib/models.mjs';
import { countingRepository, Engine, openStore, runSequential } from './lib/thresher.mjs';

const n = Number(process.argv[2] ?? 500);
const opened = await openStore('sqlite');
const counting = countingRepository(opened.repository);
const engine = new Engine({ repository: counting.repository, handlers: thresherHandlers });
await engine.deploy(throughputModel);
await runSequential(engine, 'bench', 50);
const frameBytes = 4096 + 24;
const wal = () => statSync(`${opened.path}-wal`).size;
const before = { frames: wal() / frameBytes, points: counting.counts.puts + counting.counts.putWrites };
await runSequential(engine, 'bench', n, 50);
const after = { frames: wal() / frameBytes, points: counting.counts.puts + counting.counts.putWrites };
const points = after.points - before.points;
console.log(
  JSON.stringify({
    instances: n,
    persistPoints: points,
    walFrames: after.frames - before.frames,
    pagesPerPersistPoint: (after.frames - before.frames) / points,
  }),
);
await engine.close();
await opened.repository.close();
await opened.dispose();
