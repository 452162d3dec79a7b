/**
 * @module bench/lib/baseline — the platform as it was before the changes made from these
 * benchmarks' findings, to measure before and after in the same run. A copy of the source tree (no
 * node_modules: a symlink) in which each change is reverted: bench/baseline/<name>.after.txt is
 * replaced by <name>.before.txt in its file. When someone has since edited a changed passage, the
 * revert no longer applies and the baseline is reported unavailable rather than guessed.
 */
import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REVERTS_DIR = fileURLToPath(new URL('../baseline', import.meta.url));

export interface Revert {
  name: string;
  file: string;
  why: string;
}

export const REVERTS: Revert[] = [
  // First: the changes below were made on the text these put back.
  { name: 'write-lane-store', file: 'features/records/store.ts', why: 'saveRecords in two halves: prepare (canonical JSON, hashes) and write' },
  { name: 'write-lane-import', file: 'features/scripts/context.ts', why: 'its import' },
  {
    name: 'write-lane-context',
    file: 'features/scripts/context.ts',
    why: "a sync run's writes go through an ordered lane; batchSave returns once its page is queued",
  },
  { name: 'write-lane-run', file: 'activities/syncs.ts', why: 'the sync activity gives the script a write lane and drains it' },
  {
    name: 'md5-oneshot',
    file: 'features/records/store.ts',
    why: 'record hashes with crypto.hash instead of a Hash object per record (records-save puts back the old md5)',
  },
  // Before delete-unseen: its revert applies to the text this one puts back.
  {
    name: 'records-save',
    file: 'features/records/store.ts',
    why: 'saveRecords leaves out records whose stored hash is unchanged; seen ids one row per batch; deletion detection by hash anti-join',
  },
  { name: 'seen-migration', file: 'lib/db/migrations/019_sync_run_seen.sql', why: 'sync_run_seen replaces sync_seen (the baseline keeps sync_seen)' },
  { name: 'stored-hashes', file: 'features/scripts/context.ts', why: "a sync run reads its models' stored hashes once and skips unchanged records" },
  { name: 'stored-hashes-import', file: 'features/scripts/context.ts', why: 'its import' },
  { name: 'stored-hashes-hook', file: 'features/scripts/context.ts', why: 'its run hook' },
  { name: 'stored-hashes-run', file: 'activities/syncs.ts', why: 'sync runs turn it on' },
  { name: 'paginate-ahead', file: 'features/scripts/paginate.ts', why: 'paginate requests the next page while the caller saves this one' },
  { name: 'delete-unseen', file: 'features/records/store.ts', why: 'deletion detection at the end of a full sync: NOT EXISTS kept a per-row probe (OFFSET 0)' },
  { name: 'provider-target', file: 'features/connections/target.ts', why: 'providerTarget reuses an integration its caller has just read' },
  { name: 'proxy-target', file: 'api/routes/proxy.ts', why: 'the proxy passes its integration to providerTarget' },
  {
    name: 'request-log-batch',
    file: 'start/platform.ts',
    why: 'request log entries are written in batches, off the path of the calls (features/logs/writer.ts), not one INSERT per call',
  },
  {
    name: 'proxy-direct',
    file: 'api/routes/proxy.ts',
    why: 'the proxy writes its answer on the node response instead of a web Response through the node adapter',
  },
  { name: 'lookup-cache', file: 'start/platform.ts', why: 'the API caches secret key, integration and connection lookups (LISTEN/NOTIFY invalidation)' },
  { name: 'records-lookup-import', file: 'api/routes/records.ts', why: 'GET /records finds its connection through the cached lookups (import)' },
  { name: 'records-lookup', file: 'api/routes/records.ts', why: 'GET /records finds its connection through the cached lookups' },
  {
    name: 'records-read-text',
    file: 'features/records/read.ts',
    why: "GET /records takes the timestamps as PostgreSQL's text output (not to_char), its rows as arrays, and a first page asks for cursor > 0",
  },
  { name: 'records-read-ahead', file: 'api/routes/records.ts', why: 'GET /records reads the next page ahead while the client takes this one' },
  { name: 'records-read-ahead-import', file: 'api/routes/records.ts', why: 'its import' },
  { name: 'records-read-direct', file: 'api/routes/records.ts', why: 'GET /records writes its body on the node response in one piece (issue 32)' },
  {
    name: 'records-read-copy',
    file: 'features/records/read.ts',
    why: 'GET /records reads its page by a binary COPY and copies the stored bytes, no JS strings (issue 32, p4): restores the rows-as-strings page builder, so it goes before records-read-bytes',
  },
  {
    name: 'records-read-bytes',
    file: 'features/records/read.ts',
    why: 'GET /records builds its page as one UTF-8 buffer, not a joined string encoded again (issue 32)',
  },
  { name: 'eager-start', file: 'api/action-run.ts', why: 'an action run asks for eager workflow start when API and worker share a process' },
  {
    name: 'webhook-slot-activity',
    file: 'workflows/webhook-delivery.ts',
    why: 'a delivery reserves its send slot inside the attempt activity (one activity per attempt)',
  },
  { name: 'webhook-begin-attempt', file: 'features/webhooks/deliveries.ts', why: "an attempt's count and row are written in one statement" },
  { name: 'webhook-finish-attempt', file: 'features/webhooks/deliveries.ts', why: "an attempt's outcome and its delivery are written in one statement" },
  {
    name: 'webhook-endpoint-outbox',
    file: 'features/webhooks/emit.ts',
    why: "new deliveries are sent in batches by their endpoint's workflow instead of a workflow each",
  },
];

const SKIP = new Set(['node_modules', '.git', 'test-output', '.switchyard', 'bench/out']);

/** The reverts of the sync ingest changes (issue 20), for the sync benchmark's before/after. */
export const SYNC_INGEST_REVERTS = [
  'md5-oneshot',
  'write-lane-store',
  'write-lane-import',
  'write-lane-context',
  'write-lane-run',
  'records-save',
  'stored-hashes',
  'stored-hashes-import',
  'stored-hashes-hook',
  'stored-hashes-run',
  'seen-migration',
  'paginate-ahead',
];

const built = new Map<string, Promise<{ root: string } | { unavailable: string }>>();

/** Copies the tree into `dir` and reverts the named changes (all by default), once per run. Returns the copy's root, or why it is unavailable. */
export function baselineTree(dir: string, names = REVERTS.map((r) => r.name)): Promise<{ root: string } | { unavailable: string }> {
  const key = `${dir}\0${names.join(',')}`;
  if (!built.has(key)) built.set(key, buildTree(path.join(dir, `baseline-tree-${built.size}`), names));
  return built.get(key)!;
}

async function buildTree(root: string, names: string[]): Promise<{ root: string } | { unavailable: string }> {
  await cp(ROOT, root, { recursive: true, filter: (src) => !SKIP.has(path.relative(ROOT, src)) });
  await symlink(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  for (const r of REVERTS.filter((x) => names.includes(x.name))) {
    const after = await readFile(path.join(REVERTS_DIR, `${r.name}.after.txt`), 'utf8');
    const before = await readFile(path.join(REVERTS_DIR, `${r.name}.before.txt`), 'utf8');
    const file = path.join(root, r.file);
    const text = await readFile(file, 'utf8');
    if (text.split(after).length !== 2) return { unavailable: `${r.file} has changed since the ${r.name} change; its revert does not apply` };
    await writeFile(
      file,
      text.replace(after, () => before),
    );
  }
  return { root };
}
