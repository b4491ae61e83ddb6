// A writer the SQL stores' crash tests SIGKILL mid-write (store-*/test/crash.test.ts). Plain Node on a built
// store package, named by its dist URL, the factory it exports and that factory's options as JSON:
//   node crash-writer.mjs <dist index.js URL> <factory> <options JSON> <batch|put> <entries> <entry bytes>
// It puts seq 1 of `order-1`, says `batch` or `put` on stdout, then files a large journal batch against seq 1
// (mode batch) or puts seq 2 with a large document (mode put), and says `done` if it lives that long.
const [dist, factory, options, mode, entries, entryBytes] = process.argv.slice(2);
const store = await import(dist);

const repository = await store[factory](JSON.parse(options));
const meta = {
  status: 'running',
  processId: 'order_process',
  definitionId: 'order-fulfilment',
  businessKey: null,
  parentId: null,
  callNodeId: null,
  dueAt: null,
  subscriptions: [],
};
const checkpoint = (seq, bytes) => ({
  instanceId: 'order-1',
  seq,
  parentSeq: seq === 1 ? null : seq - 1,
  schema: 1,
  definitionDigest: 'definition-digest',
  digest: `digest-${seq}`,
  bytes,
  meta,
});

await repository.put(checkpoint(1, new TextEncoder().encode('{"seq":1}')));
if (mode === 'batch') {
  const writes = Array.from({ length: Number(entries) }, (_, i) => ({
    taskId: `task-${i}`,
    index: 0,
    value: new Uint8Array(Number(entryBytes)).fill(i % 251),
  }));
  process.stdout.write('batch\n');
  await repository.putWrites('order-1', 1, writes);
} else {
  const document = new Uint8Array(Number(entries) * Number(entryBytes)).fill(7);
  process.stdout.write('put\n');
  await repository.put(checkpoint(2, document));
}
process.stdout.write('done\n');
await repository.close();
