/**
 * @module features/records/read — paged reads of the records cache in Nango's `GET /records` shape. Pages
 * are keyset on `cursor` (a sequence value taken on every change) over the index
 * (connection_pk, model, cursor). PostgreSQL writes the page's JSON: each record is its stored text
 * (`data::text`) with `_nango_metadata` appended, the records joined into one text value, so the API
 * receives one string and sends it on, with no row or field objects in between (bench/RESULTS.md,
 * records read). Building records with jsonb_build_object was measured slower (~1.2–2 s per 100k),
 * and `to_char` costs ~10 µs a call: timestamps are formatted from to_json's text instead (isoJson).
 */
import type { Queryable } from '../../lib/db/pool.js';
import { Where } from '../../lib/db/where.js';

export type RecordsFilter = 'added' | 'updated' | 'deleted';

export interface RecordsQuery {
  connectionPk: number;
  model: string;
  /** An opaque cursor from `next_cursor` or a record's `_nango_metadata.cursor`: records after it. */
  cursor?: string;
  /** Records modified at or after this instant; a string keeps microseconds (`…941305+00:00`). */
  modifiedAfter?: Date | string;
  filter?: RecordsFilter[];
  ids?: string[];
  limit: number;
}

export interface NangoRecordMetadata {
  first_seen_at: string;
  last_modified_at: string;
  last_action: 'ADDED' | 'UPDATED' | 'DELETED';
  deleted_at: string | null;
  pruned_at: string | null;
  cursor: string;
}

export type NangoRecord = Record<string, unknown> & { _nango_metadata: NangoRecordMetadata };

export interface RecordsPage<R> {
  records: R[];
  nextCursor: string | null;
}

const MAX_CURSOR = 9223372036854775807n;

export class InvalidCursor extends Error {
  constructor() {
    super('The cursor is not one this API returned');
    this.name = 'InvalidCursor';
  }
}

/** base64url of the cursor number, as `next_cursor` and `_nango_metadata.cursor` carry it. */
export function encodeCursor(cursor: number | bigint | string): string {
  return Buffer.from(String(cursor)).toString('base64url');
}

/** The cursor number (as a decimal string) of an opaque cursor; throws InvalidCursor. */
export function decodeCursor(cursor: string): string {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(cursor)) throw new InvalidCursor();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^\d{1,19}$/.test(text) || BigInt(text) > MAX_CURSOR) throw new InvalidCursor();
  return text;
}

const NANGO_CURSOR = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d))\|\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A cursor as Nango's records service encodes it (base64 of `{last_modified_at}||{record uuid}`),
 * which a client that moved from Nango may have stored: its instant, or null when `cursor` is not one.
 * Records here have other ids, so such a cursor stands for "modified at or after that instant":
 * a record modified in that very instant may come again, none is left out.
 */
export function nangoCursorInstant(cursor: string): string | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(cursor)) return null;
  const m = NANGO_CURSOR.exec(Buffer.from(cursor, 'base64').toString('latin1'));
  return m && !Number.isNaN(Date.parse(m[1]!)) ? m[1]! : null;
}

/** A cursor of either kind: this API's position, or a Nango cursor's instant; throws InvalidCursor. */
export type RecordsCursor = { position: string } | { modifiedFrom: string };
export function parseCursor(cursor: string): RecordsCursor {
  try {
    return { position: decodeCursor(cursor) };
  } catch (err) {
    const instant = nangoCursorInstant(cursor);
    if (instant === null) throw err;
    return { modifiedFrom: instant };
  }
}

/** A timestamptz column as a JSON string in UTC to the microsecond (`"2025-09-18T15:20:35.941305+00:00"`, Nango's shape), or NULL. */
const isoJson = (col: string) => `'"' || to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') || '"'`;

/** encodeCursor in SQL: base64 of the decimal digits (which never gives `+` or `/`), unpadded. */
const cursorSql = (col: string) => `rtrim(encode(${col}::text::bytea, 'base64'), '=')`;

/**
 * A record in the wire shape: its stored JSON text (`d`, an object: saveRecords takes objects) with
 * `_nango_metadata` appended before the closing brace. The brace is cut as bytes (textsend, substr of
 * a bytea, convert_from): text functions count characters from the start, which cost more than the
 * record's own output. The metadata is put together first, so the record's text is copied once.
 */
const RECORD_JSON = `CASE WHEN d = '{}' THEN '{' ELSE convert_from(substr(textsend(d), 1, octet_length(d) - 1), 'UTF8') END
  || (CASE WHEN d = '{}' THEN '' ELSE ',' END || '"_nango_metadata":{"first_seen_at":' || ${isoJson('first_seen_at')}
    || ',"last_modified_at":' || ${isoJson('last_modified_at')} || ',"last_action":' || to_json(last_action)::text
    || ',"deleted_at":' || coalesce(${isoJson('deleted_at')}, 'null') || ',"pruned_at":' || coalesce(${isoJson('pruned_at')}, 'null')
    || ',"cursor":"' || ${cursorSql('cursor')} || '"}}')`;

/** Records per row of the page query: one text value per page cost PostgreSQL more to send (~5 ms for 1 MB) than rows of ~25 KB. */
const RECORDS_PER_ROW = 25;

const ACTION: Record<RecordsFilter, string> = { added: 'ADDED', updated: 'UPDATED', deleted: 'DELETED' };

function buildQuery(q: RecordsQuery): { text: string; values: unknown[] } {
  const where = new Where('connection_pk = ? AND model = ?', q.connectionPk, q.model);
  // Cursors start at 1, so a first page asks for cursor > 0: with the cursor in the condition the
  // planner walks the (connection_pk, model, cursor) index even when the table has no statistics yet
  // (after a first big sync); without it, it read and sorted the whole model (0.5–0.7 s at 100k).
  const from = q.cursor === undefined ? { position: '0' } : parseCursor(q.cursor);
  where.and('cursor > ?::bigint', 'position' in from ? from.position : '0');
  if ('modifiedFrom' in from) where.and('last_modified_at >= ?::timestamptz', from.modifiedFrom);
  if (q.modifiedAfter !== undefined)
    where.and('last_modified_at >= ?::timestamptz', q.modifiedAfter instanceof Date ? q.modifiedAfter.toISOString() : q.modifiedAfter);
  if (q.filter && q.filter.length > 0) where.and('last_action = ANY(?::text[])', [...new Set(q.filter.map((f) => ACTION[f]))]);
  if (q.ids && q.ids.length > 0) where.and('external_id = ANY(?::text[])', q.ids);
  const conditions = String(where);
  // One record more than asked (whether another page follows, without an empty last page), numbered
  // in cursor order; the page is the first `limit`, joined in that order, RECORDS_PER_ROW a row.
  const take = where.param(q.limit + 1);
  const keep = where.param(q.limit);
  const text = `SELECT string_agg(${RECORD_JSON}, ',') FILTER (WHERE n <= ${keep}) AS records,
      count(*) FILTER (WHERE n <= ${keep}) AS kept, count(*) AS seen, max(cursor) FILTER (WHERE n <= ${keep})::text AS last
    FROM (SELECT row_number() OVER () AS n, * FROM (
      SELECT data::text AS d, first_seen_at, last_modified_at, deleted_at, pruned_at, last_action, cursor FROM records
      WHERE ${conditions} ORDER BY cursor LIMIT ${take}) page) numbered
    GROUP BY (n - 1) / ${RECORDS_PER_ROW} ORDER BY (n - 1) / ${RECORDS_PER_ROW}`;
  return { text, values: where.values };
}

/** One page as the `GET /records` body, built by PostgreSQL from the stored JSON text; `count` records. */
export interface RecordsPageBody {
  body: string;
  count: number;
  nextCursor: string | null;
}

/**
 * One page. `nextCursor` is the last record's cursor when more records follow, else null. Throws
 * InvalidCursor for a cursor this API did not produce.
 */
export async function readRecordsBody(db: Queryable, q: RecordsQuery): Promise<RecordsPageBody> {
  const { text, values } = buildQuery(q);
  const { rows } = await db.query<{ records: string | null; kept: number; seen: number; last: string | null }>(text, values);
  const parts: string[] = [];
  let count = 0;
  let seen = 0;
  let last: string | null = null;
  for (const r of rows) {
    if (r.records !== null) parts.push(r.records);
    count += r.kept;
    seen += r.seen;
    last = r.last ?? last;
  }
  const nextCursor = seen > count && last !== null ? encodeCursor(last) : null;
  return { body: `{"records":[${parts.join(',')}],"next_cursor":${nextCursor === null ? 'null' : `"${nextCursor}"`}}`, count, nextCursor };
}

/** One page as objects; see readRecordsBody. */
export async function readRecords(db: Queryable, q: RecordsQuery): Promise<RecordsPage<NangoRecord>> {
  const { body } = await readRecordsBody(db, q);
  const page = JSON.parse(body) as { records: NangoRecord[]; next_cursor: string | null };
  return { records: page.records, nextCursor: page.next_cursor };
}
