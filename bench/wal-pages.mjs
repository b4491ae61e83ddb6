// Pages a persist point writes on SQLite, counted from the WAL (issue 60): N sequential instances of the
// throughput model on a fresh file, every frame the measured section appended read back and named by the
// b-tree its page belongs to (dbstat), ÷ the persist points. `node bench/wal-pages.mjs [N]` (default 300).
// The section must fit in the WAL before the store's automatic checkpoint (10,000 pages) restarts it: a
// restarted WAL is refused, not counted (the first figures, 8.92, were taken past it and read too low).
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { thresherHandlers, throughputModel } from './lib/models.mjs';
import { countingRepository, Engine, openStore, runSequential } from './lib/thresher.mjs';

const n = Number(process.argv[2] ?? 300);
const opened = await openStore('sqlite');
const counting = countingRepository(opened.repository);
const engine = new Engine({ repository: counting.repository, handlers: thresherHandlers });
await engine.deploy(throughputModel);
await runSequential(engine, 'bench', 50);
const walPath = `${opened.path}-wal`;
const header = () => readFileSync(walPath).subarray(0, 32);
const before = {
  bytes: statSync(walPath).size,
  header: header(),
  points: counting.counts.puts + counting.counts.putWrites,
};
await runSequential(engine, 'bench', n, 50);
const wal = readFileSync(walPath);
const points = counting.counts.puts + counting.counts.putWrites - before.points;
if (!wal.subarray(0, 32).equals(before.header)) {
  console.error(`the WAL was checkpointed and restarted during the section: run fewer instances than ${n}`);
  process.exit(1);
}
const pageSize = wal.readUInt32BE(8);
const frameBytes = pageSize + 24;
const pages = [];
for (let at = before.bytes; at + frameBytes <= wal.length; at += frameBytes) pages.push(wal.readUInt32BE(at));
const db = new Database(opened.path, { readonly: true });
const owner = new Map(
  db
    .prepare('SELECT pageno, name FROM dbstat')
    .all()
    .map((row) => [row.pageno, row.name]),
);
db.close();
const byTree = {};
for (const page of pages) {
  const name = page === 1 ? 'page 1 (header)' : (owner.get(page) ?? 'free');
  byTree[name] = (byTree[name] ?? 0) + 1;
}
const perPoint = (count) => Math.round((count / points) * 100) / 100;
console.log(
  JSON.stringify(
    {
      instances: n,
      persistPoints: points,
      walFrames: pages.length,
      pagesPerPersistPoint: perPoint(pages.length),
      byTree: Object.fromEntries(
        Object.entries(byTree)
          .sort((a, b) => b[1] - a[1])
          .map(([name, count]) => [name, perPoint(count)]),
      ),
    },
    null,
    2,
  ),
);
await engine.close();
await opened.repository.close();
await opened.dispose();
