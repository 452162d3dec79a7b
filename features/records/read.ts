/**
 * @module features/records/read — paged reads of the records cache in Nango's `GET /records` shape. Pages
 * are keyset on `cursor` (a sequence value taken on every change) over the index
 * (connection_pk, model, cursor). A record's JSON is the stored text (`data::text`) with
 * `_nango_metadata` appended as a string: measured on 100k records in 10k pages, ~0.7 s against
 * ~1.4 s for parsing rows into objects and JSON.stringify and ~1.2–2 s for building each record's
 * JSON in SQL (jsonb_build_object). `GET /records` gets its page as one UTF-8 buffer written piece
 * by piece (pageBody), not as a string joined and encoded again for the socket. The timestamps come
 * as PostgreSQL's own text output and are rewritten here (isoMicros): `to_char` cost Postgres ~10 µs
 * per call, two or three per record, which was twice the rest of the page's query (bench/RESULTS.md,
 * 2026-11-23 records read).
 */
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';

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

// Timestamps as the server's text output (`2025-09-18 15:20:35.941305+00` in DateStyle ISO, which
// node-postgres assumes as well), rewritten by isoMicros; the same output function the bare SELECT pays.
const COLUMNS = `data::text AS data, first_seen_at::text AS first_seen_at, last_modified_at::text AS last_modified_at,
  deleted_at::text AS deleted_at, last_action, cursor::text AS cursor_text, pruned_at::text AS pruned_at`;

/** Columns in COLUMNS order; rows come as arrays (no object per row). */
type Row = [
  data: string,
  firstSeenAt: string,
  lastModifiedAt: string,
  deletedAt: string | null,
  lastAction: string,
  cursorText: string,
  prunedAt: string | null,
];

const PG_TIMESTAMPTZ = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?$/;

/**
 * A timestamptz in PostgreSQL's ISO text output, in UTC as `YYYY-MM-DDTHH:MI:SS.USUSUS+00:00` (what
 * `to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')` gives), whatever the session's
 * time zone. Text it does not recognise (infinity, BC, years past 9999) is returned unchanged.
 */
export function isoMicros(text: string): string {
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) return text;
  const micros = (m[7] ?? '').padEnd(6, '0');
  const offsetSeconds = Number(m[9]) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0);
  if (offsetSeconds === 0) return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${micros}+00:00`;
  const local = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const utc = new Date(local - (m[8] === '-' ? -offsetSeconds : offsetSeconds) * 1000).toISOString();
  return utc.length === 24 ? `${utc.slice(0, 19)}.${micros}+00:00` : text;
}

/** isoMicros, remembering its last answer: a page's records mostly share their timestamps (one batch, one now()). */
function lastIso(): (text: string) => string {
  let lastIn = '';
  let lastOut = '';
  return (text) => (text === lastIn ? lastOut : ((lastIn = text), (lastOut = isoMicros(text))));
}

/** The record's `"_nango_metadata":{…` member up to the cursor's value, its opening quote included. */
function metadataHead(r: Row, firstSeen: (t: string) => string = isoMicros, lastModified: (t: string) => string = isoMicros): string {
  const [, firstSeenAt, lastModifiedAt, deletedAt, lastAction, , prunedAt] = r;
  return (
    `"_nango_metadata":{"first_seen_at":"${firstSeen(firstSeenAt)}","last_modified_at":"${lastModified(lastModifiedAt)}","last_action":${JSON.stringify(lastAction)},` +
    `"deleted_at":${deletedAt === null ? 'null' : `"${isoMicros(deletedAt)}"`},"pruned_at":${prunedAt === null ? 'null' : `"${isoMicros(prunedAt)}"`},"cursor":"`
  );
}

/** The record's `"_nango_metadata":{…}` member (without the comma before it nor the record's closing brace). */
function metadataJson(r: Row, firstSeen: (t: string) => string, lastModified: (t: string) => string): string {
  return `${metadataHead(r, firstSeen, lastModified)}${encodeCursor(r[5])}"}`;
}

/** The record's JSON text with `_nango_metadata` appended: string work only, no parse. */
function recordJson(r: Row, firstSeen: (t: string) => string, lastModified: (t: string) => string): string {
  const meta = metadataJson(r, firstSeen, lastModified);
  return r[0] === '{}' ? `{${meta}}` : `${r[0].slice(0, -1)},${meta}}`;
}

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
  // One more than asked: whether another page exists, without an empty last page.
  const [text, values] = pageQuery(`SELECT ${COLUMNS} FROM records`, where, { orderBy: 'cursor', limit: q.limit + 1 });
  return { text, values };
}

/** One page's rows and whether more follow. */
async function readRows(db: Queryable, q: RecordsQuery): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const { text, values } = buildQuery(q);
  const { rows } = await db.query<Row>({ text, values, rowMode: 'array' });
  const more = rows.length > q.limit;
  if (more) rows.pop();
  return { rows, nextCursor: more ? encodeCursor(rows[rows.length - 1]![5]) : null };
}

/**
 * One page, each record as its JSON text. `nextCursor` is the last record's cursor when more
 * records follow, else null. Throws InvalidCursor for a cursor this API did not produce.
 */
export async function readRecordsJson(db: Queryable, q: RecordsQuery): Promise<RecordsPage<string>> {
  const { rows, nextCursor } = await readRows(db, q);
  const firstSeen = lastIso();
  const lastModified = lastIso();
  return { records: rows.map((r) => recordJson(r, firstSeen, lastModified)), nextCursor };
}

/** One page as objects; see readRecordsJson. */
export async function readRecords(db: Queryable, q: RecordsQuery): Promise<RecordsPage<NangoRecord>> {
  const page = await readRecordsJson(db, q);
  return { records: page.records.map((r) => JSON.parse(r) as NangoRecord), nextCursor: page.nextCursor };
}

/** One page as the `GET /records` body, in UTF-8; `count` records. */
export interface RecordsPageBody {
  body: Buffer;
  count: number;
  nextCursor: string | null;
}

const BASE64URL = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', 'latin1');

/** Writes encodeCursor(digits) at `at` (digits: a bigint's text, ASCII); returns the offset after it. */
function writeCursor(out: Buffer, at: number, digits: string): number {
  const n = digits.length;
  let i = 0;
  for (; i + 3 <= n; i += 3) {
    const v = (digits.charCodeAt(i) << 16) | (digits.charCodeAt(i + 1) << 8) | digits.charCodeAt(i + 2);
    out[at++] = BASE64URL[v >> 18]!;
    out[at++] = BASE64URL[(v >> 12) & 63]!;
    out[at++] = BASE64URL[(v >> 6) & 63]!;
    out[at++] = BASE64URL[v & 63]!;
  }
  if (i < n) {
    const v = (digits.charCodeAt(i) << 16) | (i + 1 < n ? digits.charCodeAt(i + 1) << 8 : 0);
    out[at++] = BASE64URL[v >> 18]!;
    out[at++] = BASE64URL[(v >> 12) & 63]!;
    if (i + 1 < n) out[at++] = BASE64URL[(v >> 6) & 63]!;
  }
  return at;
}

/**
 * The `GET /records` body of these rows, written straight into one buffer: each record's stored text,
 * its closing brace replaced by `,"_nango_metadata":{…}}`. Joining the records' strings into one and
 * encoding that for the socket copied the page twice more (bench/RESULTS.md, issue 32 records read).
 * The metadata up to the cursor is the same string for consecutive records with the same timestamps
 * and action (a sync's batch), so it is built and measured once for each run of them.
 */
function pageBody(rows: Row[], nextCursor: string | null): Buffer {
  const head = '{"records":[';
  const tail = `],"next_cursor":${JSON.stringify(nextCursor)}}`;
  // Per record: its text less its closing brace, "," (not after `{}`), the metadata, the cursor,
  // and `"}}`; a comma between records. The comma after the text is counted for every record.
  const prefixes = new Array<string>(rows.length);
  const prefixBytes = new Array<number>(rows.length);
  let last: Row | null = null;
  let prefix = '';
  let bytes = 0;
  let size = head.length + Buffer.byteLength(tail) + Math.max(rows.length - 1, 0);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const [data, firstSeenAt, lastModifiedAt, deletedAt, lastAction, cursorText, prunedAt] = row;
    if (last === null || firstSeenAt !== last[1] || lastModifiedAt !== last[2] || deletedAt !== last[3] || lastAction !== last[4] || prunedAt !== last[6]) {
      last = row;
      prefix = metadataHead(row);
      bytes = Buffer.byteLength(prefix);
    }
    prefixes[i] = prefix;
    prefixBytes[i] = bytes;
    size += Buffer.byteLength(data) + bytes + Math.ceil((cursorText.length * 4) / 3) + 3;
  }
  const body = Buffer.allocUnsafe(size);
  let at = body.write(head, 0, 'latin1');
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) body[at++] = 0x2c; // ,
    const row = rows[i]!;
    const data = row[0];
    at += body.write(data, at, 'utf8') - 1; // over its closing brace
    if (data !== '{}') body[at++] = 0x2c;
    at += body.write(prefixes[i]!, at, prefixBytes[i]!, 'utf8');
    at = writeCursor(body, at, row[5]);
    body[at++] = 0x22; // "
    body[at++] = 0x7d; // }
    body[at++] = 0x7d;
  }
  at += body.write(tail, at, 'utf8');
  return at === size ? body : body.subarray(0, at);
}

/** One page as the `GET /records` body (see readRecordsJson). */
export async function readRecordsBody(db: Queryable, q: RecordsQuery): Promise<RecordsPageBody> {
  const { rows, nextCursor } = await readRows(db, q);
  return { body: pageBody(rows, nextCursor), count: rows.length, nextCursor };
}
