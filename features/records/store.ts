/**
 * @module features/records/store — the records cache: upserts with change detection by content hash,
 * deletions (reported, or detected at the end of a full sync), and cursor reads that stream.
 */
import { hash } from 'node:crypto';
import { canonicalJsonEach } from '../../lib/canonical-json.js';
import { withTransaction, type Db, type Queryable } from '../../lib/db/pool.js';

export interface SaveResult {
  added: number;
  updated: number;
  unchanged: number;
}

function md5(text: string): string {
  // The one-shot form: no Hash object per record (1.4–2.5 µs instead of 3.5–4.2 µs for 1 KB here).
  return hash('md5', text, 'hex');
}

/**
 * Stored content hashes of a model's records, by external id: what a sync run compares its pages with.
 * A record stored deleted or pruned maps to '' (no content hash): it is there, so saving it upserts.
 * `upTo`: the model's highest cursor when they were read (every insert, update, delete or restore of
 * a record takes a higher one).
 */
export type StoredHashes = Map<string, string> & { readonly upTo: string };

/**
 * The content hashes of the model's records, read once (one pass over the model's rows, whatever the
 * planner picks), with the highest cursor in the same snapshot; null when the model has more than
 * `cap` records (kept in memory).
 */
export async function storedHashes(db: Db, connectionPk: number, model: string, cap = 250_000): Promise<StoredHashes | null> {
  return withTransaction(db, async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // Two JSON arrays in one row, in the same order (one scan feeds both aggregates): a third of the
    // CPU of a row per record here, whose decoding and garbage came before a run's first page.
    const { rows } = await tx.query<{ ids: string; hashes: string }>(
      `SELECT coalesce(json_agg(external_id), '[]')::text AS ids, coalesce(json_agg(h), '[]')::text AS hashes
         FROM (SELECT external_id, CASE WHEN deleted_at IS NULL AND pruned_at IS NULL THEN hash ELSE '' END AS h FROM records
                WHERE connection_pk = $1 AND model = $2 LIMIT $3) AS stored`,
      [connectionPk, model, cap + 1],
    );
    const ids = JSON.parse(rows[0]!.ids) as string[];
    if (ids.length > cap) return null;
    const hashes = JSON.parse(rows[0]!.hashes) as string[];
    const stored = new Map<string, string>();
    for (let i = 0; i < ids.length; i++) stored.set(ids[i]!, hashes[i]!);
    const top = await tx.query<{ top: string }>(
      'SELECT cursor::text AS top FROM records WHERE connection_pk = $1 AND model = $2 ORDER BY cursor DESC LIMIT 1',
      [connectionPk, model],
    );
    return Object.assign(stored, { upTo: top.rows[0]?.top ?? '0' });
  });
}

export interface SaveOptions {
  seenRunId?: string;
  merge?: boolean;
  /**
   * storedHashes, kept up to date by the caller with the result's `hashes` once the save commits:
   * records whose hash it holds are left out (an unchanged page sends no data and writes and locks no
   * row of `records`), and records it does not hold are inserted without conflict handling. Such an
   * insert fails with a unique violation (isDuplicateRecord) when another writer stored one of those
   * ids meanwhile: the caller saves again with `insertNew: false`.
   */
  stored?: StoredHashes | null;
  /** false: every record not left out goes through the upsert (the retry after a duplicate). */
  insertNew?: boolean;
}

/**
 * Upserts records; a record whose content hash is unchanged (and not deleted) is not written. With
 * `seenRunId` the ids are also noted, one row per batch, for the sync's deletion detection.
 */
export async function saveRecords(
  db: Queryable,
  connectionPk: number,
  model: string,
  records: { id: string }[],
  opts: SaveOptions = {},
): Promise<SaveResult & { hashes?: Map<string, string> }> {
  return savePrepared(db, connectionPk, model, prepareRecords(records), opts);
}

/** A batch ready to save: ids (the last occurrence of an id wins), canonical texts and their hashes. */
export interface PreparedRecords {
  ids: string[];
  datas: string[];
  hashes: string[];
}

/** The CPU half of a save (no database): a caller may prepare one batch while the previous one is written. */
export function prepareRecords(records: { id: string }[]): PreparedRecords {
  // The last occurrence of an id in one batch wins, as with sequential saves.
  const byId = new Map<string, { id: string }>();
  for (const r of records) byId.set(String(r.id), r);
  // The canonical text is both the stored data (jsonb keeps no key order) and what is hashed.
  const datas = canonicalJsonEach([...byId.values()]);
  return { ids: [...byId.keys()], datas, hashes: datas.map(md5) };
}

/** The insert's or upsert's rows: ids, hashes and the records' texts as one JSON array (parsed once, no array escaping). */
const ROWS = 'ROWS FROM (unnest($3::text[]), jsonb_array_elements($4::jsonb), unnest($5::text[])) AS t(id, data, hash)';

/** A save's insert of records not stored yet failed because another writer stored one of them meanwhile. */
export function isDuplicateRecord(err: unknown): boolean {
  const e = err as { code?: string; table?: string };
  return e?.code === '23505' && e.table === 'records';
}

/** The ids of a batch as prepareRecords orders them: each once, where it first occurs. */
export function uniqueIds(records: { id: unknown }[]): string[] {
  return [...new Set(records.map((r) => String(r.id)))];
}

/** saveRecords for a batch already prepared by prepareRecords. */
export async function savePrepared(
  db: Queryable,
  connectionPk: number,
  model: string,
  { ids, datas, hashes }: PreparedRecords,
  opts: SaveOptions = {},
): Promise<SaveResult & { hashes?: Map<string, string> }> {
  if (ids.length === 0) return { added: 0, updated: 0, unchanged: 0 };
  const stored = opts.merge ? null : opts.stored;
  const fresh: number[] = [];
  const known: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    const had = stored?.get(ids[i]!);
    if (had === hashes[i]) continue;
    (stored && had === undefined && opts.insertNew !== false ? fresh : known).push(i);
  }
  const params = (picked: number[]) => {
    const pick = <T>(xs: T[]) => (picked.length === ids.length ? xs : picked.map((i) => xs[i]!));
    return [connectionPk, model, pick(ids), `[${pick(datas).join(',')}]`, pick(hashes)];
  };
  let added = 0;
  let updated = 0;
  if (fresh.length > 0) {
    const { rowCount } = await db.query(
      `INSERT INTO records (connection_pk, model, external_id, data, hash) SELECT $1, $2, t.id, t.data, t.hash FROM ${ROWS}`,
      params(fresh),
    );
    added += rowCount ?? 0;
  }
  if (known.length > 0) {
    const dataExpr = opts.merge ? 'records.data || EXCLUDED.data' : 'EXCLUDED.data';
    // A pruned record saved unchanged gets its payload back without counting as a change (its cursor stays), as in Nango.
    const changed = 'records.hash <> EXCLUDED.hash OR records.deleted_at IS NOT NULL';
    const { rows } = await db.query<{ inserted: boolean; changed: boolean }>(
      `INSERT INTO records (connection_pk, model, external_id, data, hash)
       SELECT $1, $2, t.id, t.data, t.hash FROM ${ROWS}
       ON CONFLICT (connection_pk, model, external_id) DO UPDATE SET
         data = ${opts.merge ? 'CASE WHEN records.pruned_at IS NULL THEN records.data || EXCLUDED.data ELSE EXCLUDED.data END' : dataExpr},
         hash = EXCLUDED.hash, deleted_at = NULL, pruned_at = NULL,
         last_modified_at = CASE WHEN ${changed} THEN now() ELSE records.last_modified_at END,
         last_action = CASE WHEN records.deleted_at IS NOT NULL THEN 'ADDED' WHEN ${changed} THEN 'UPDATED' ELSE records.last_action END,
         cursor = CASE WHEN ${changed} THEN nextval('records_cursor_seq') ELSE records.cursor END
       WHERE ${changed} OR records.pruned_at IS NOT NULL
       RETURNING (xmax = 0) AS inserted, (xmax = 0 OR records.last_modified_at = now()) AS changed`,
      params(known),
    );
    for (const r of rows) {
      if (r.inserted) added++;
      else if (r.changed) updated++;
    }
  }
  if (opts.seenRunId) await noteSeen(db, opts.seenRunId, model, ids);
  const result = { added, updated, unchanged: ids.length - added - updated };
  return stored ? { ...result, hashes: new Map(ids.map((id, i) => [id, hashes[i]!])) } : result;
}

/** A sync run saw these ids (its deletion detection keeps them): one row per batch. */
export async function noteSeen(db: Queryable, runId: string, model: string, ids: string[]): Promise<void> {
  await db.query('INSERT INTO sync_run_seen (run_id, model, external_ids) VALUES ($1, $2, $3)', [runId, model, ids]);
}

/**
 * Prunes up to `limit` records of the model, oldest cursor first, up to `until` included (a cursor
 * position, or the instant of a Nango cursor): their payload is emptied to their id and `pruned_at`
 * set; cursor, timestamps and last action stay (Nango's prune). `hasMore`: unpruned records up to
 * `until` remain.
 */
export async function pruneRecords(
  db: Queryable,
  connectionPk: number,
  model: string,
  until: { position: string } | { modifiedFrom: string },
  limit: number,
): Promise<{ count: number; hasMore: boolean }> {
  const [bound, value] = 'position' in until ? ['cursor <= $3::bigint', until.position] : ['last_modified_at <= $3::timestamptz', until.modifiedFrom];
  const scope = `connection_pk = $1 AND model = $2 AND pruned_at IS NULL AND ${bound}`;
  const { rowCount } = await db.query(
    `UPDATE records SET pruned_at = now(), data = jsonb_build_object('id', external_id)
     WHERE id IN (SELECT id FROM records WHERE ${scope} ORDER BY cursor LIMIT $4)`,
    [connectionPk, model, value, limit],
  );
  const { rows } = await db.query<{ more: boolean }>(`SELECT EXISTS (SELECT 1 FROM records WHERE ${scope}) AS more`, [connectionPk, model, value]);
  return { count: rowCount ?? 0, hasMore: rows[0]!.more };
}

export async function deleteRecords(db: Queryable, connectionPk: number, model: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await db.query(
    `UPDATE records SET deleted_at = now(), last_modified_at = now(), last_action = 'DELETED', cursor = nextval('records_cursor_seq')
     WHERE connection_pk = $1 AND model = $2 AND external_id = ANY($3) AND deleted_at IS NULL`,
    [connectionPk, model, ids],
  );
  return rowCount ?? 0;
}

/** The records a run's deletion detection looks at (features/records/delete-scope.ts): a cursor above `after`, or one of `ids`. */
export interface DeleteScope {
  after: string;
  ids: string[];
}

/**
 * Marks as deleted every live record of the model that the run did not see. Call it in a
 * transaction (SET LOCAL): it makes that transaction's planner use a hash (or merge) anti-join against the run's
 * seen ids, O(n) whatever the statistics say. Left to itself, the planner trusts statistics taken
 * before the sync filled the tables (a new connection, a first big sync) and may pick a nested loop
 * that rescans the run's ids for every record: O(n²), minutes at 20k records, hours at 100k
 * (bench/RESULTS.md). The run's seen ids are kept (other models of the run still need them): the
 * caller forgets them once, after every model. With the run's `scope` (features/records/delete-scope.ts),
 * only the records in it are looked at, by index.
 */
export async function deleteUnseen(db: Queryable, connectionPk: number, model: string, runId: string, scope?: DeleteScope): Promise<number> {
  await db.query('SET LOCAL enable_nestloop = off');
  const { rowCount } = await db.query(
    `UPDATE records r SET deleted_at = now(), last_modified_at = now(), last_action = 'DELETED', cursor = nextval('records_cursor_seq')
     WHERE r.connection_pk = $1 AND r.model = $2 AND r.deleted_at IS NULL${scope ? ' AND (r.cursor > $4::bigint OR r.external_id = ANY($5))' : ''}
       AND NOT EXISTS (SELECT 1 FROM sync_run_seen s, unnest(s.external_ids) AS e(id) WHERE s.run_id = $3 AND s.model = $2 AND e.id = r.external_id)`,
    scope ? [connectionPk, model, runId, scope.after, scope.ids] : [connectionPk, model, runId],
  );
  return rowCount ?? 0;
}

export async function forgetRun(db: Queryable, runId: string): Promise<void> {
  await db.query('DELETE FROM sync_run_seen WHERE run_id = $1', [runId]);
}

export async function emptyCache(db: Queryable, connectionPk: number, models: string[]): Promise<void> {
  await db.query('DELETE FROM records WHERE connection_pk = $1 AND model = ANY($2)', [connectionPk, models]);
}

export async function countRecords(db: Queryable, connectionPk: number, models: string[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ model: string; n: number }>(
    'SELECT model, count(*)::int AS n FROM records WHERE connection_pk = $1 AND model = ANY($2) AND deleted_at IS NULL GROUP BY model',
    [connectionPk, models],
  );
  return Object.fromEntries(models.map((m) => [m, rows.find((r) => r.model === m)?.n ?? 0]));
}

/** When the record was last modified (added, updated or deleted), null when it was never stored. */
export async function recordModifiedAt(db: Queryable, connectionPk: number, model: string, externalId: string): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date }>('SELECT last_modified_at AS at FROM records WHERE connection_pk = $1 AND model = $2 AND external_id = $3', [
    connectionPk,
    model,
    externalId,
  ]);
  return rows[0]?.at ?? null;
}

/** A live record's data, by its external id; null when it is absent or deleted. */
export async function getRecordData<T>(db: Queryable, connectionPk: number, model: string, externalId: string): Promise<T | null> {
  const { rows } = await db.query<{ data: T }>('SELECT data FROM records WHERE connection_pk = $1 AND model = $2 AND external_id = $3 AND deleted_at IS NULL', [
    connectionPk,
    model,
    externalId,
  ]);
  return rows[0]?.data ?? null;
}

/**
 * The live record whose data fields equal `match` (a `null` value matches an absent field), the most
 * recently modified first; null when none does.
 */
export async function findRecordData<T>(db: Queryable, connectionPk: number, model: string, match: Record<string, string | null>): Promise<T | null> {
  const values: unknown[] = [connectionPk, model];
  const conditions = Object.entries(match).map(([field, value]) => {
    values.push(field);
    if (value === null) return `data->>$${values.length} IS NULL`;
    values.push(value);
    return `data->>$${values.length - 1} = $${values.length}`;
  });
  const { rows } = await db.query<{ data: T }>(
    `SELECT data FROM records WHERE connection_pk = $1 AND model = $2 AND deleted_at IS NULL${conditions.map((c) => ` AND ${c}`).join('')}
      ORDER BY last_modified_at DESC LIMIT 1`,
    values,
  );
  return rows[0]?.data ?? null;
}
