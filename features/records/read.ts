/**
 * @module features/records/read — paged reads of the records cache in Nango's `GET /records` shape. Pages
 * are keyset on `cursor` (a sequence value taken on every change) over the index
 * (connection_pk, model, cursor). A record's JSON is the stored text (`data::text`) with
 * `_nango_metadata` appended as a string: measured on 100k records in 10k pages, ~0.7 s against
 * ~1.4 s for parsing rows into objects and JSON.stringify and ~1.2–2 s for building each record's
 * JSON in SQL (jsonb_build_object). `GET /records` reads its page by a binary COPY and writes it
 * into one UTF-8 buffer as the rows arrive (PageWriter): the stored bytes are copied, never decoded
 * into JS strings and encoded back (bench/RESULTS.md, issue 32 records read). The timestamps come
 * as PostgreSQL's own text output and are rewritten here (isoMicros): `to_char` cost Postgres ~10 µs
 * per call, two or three per record, which was twice the rest of the page's query (bench/RESULTS.md,
 * 2026-11-23 records read).
 */
import { copyOut, inlineParams } from '../../lib/db/copy-out.js';
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';
import { pageChunks, PageStream } from './page-stream.js';

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

function buildQuery(q: RecordsQuery, columns = COLUMNS): { text: string; values: unknown[] } {
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
  const [text, values] = pageQuery(`SELECT ${columns} FROM records`, where, { orderBy: 'cursor', limit: q.limit + 1 });
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

/** Writes the base64url of `src[from, to)` (a bigint's ASCII digits) at `at`; returns the offset after it. */
function writeCursor(out: Buffer, at: number, src: Buffer, from: number, to: number): number {
  let i = from;
  for (; i + 3 <= to; i += 3) {
    const v = (src[i]! << 16) | (src[i + 1]! << 8) | src[i + 2]!;
    out[at++] = BASE64URL[v >> 18]!;
    out[at++] = BASE64URL[(v >> 12) & 63]!;
    out[at++] = BASE64URL[(v >> 6) & 63]!;
    out[at++] = BASE64URL[v & 63]!;
  }
  if (i < to) {
    const v = (src[i]! << 16) | (i + 1 < to ? src[i + 1]! << 8 : 0);
    out[at++] = BASE64URL[v >> 18]!;
    out[at++] = BASE64URL[(v >> 12) & 63]!;
    if (i + 1 < to) out[at++] = BASE64URL[(v >> 6) & 63]!;
  }
  return at;
}

// The page's COPY columns: the metadata after data and cursor, so that a record's metadata is one
// run of bytes (lengths included) to compare with the record before it.
// Aliased: ORDER BY cursor must name the column, not a text output column called cursor.
const COPY_COLUMNS = `data::text AS data_text, cursor::text AS cursor_text, first_seen_at::text AS f, last_modified_at::text AS m, deleted_at::text AS d, last_action, pruned_at::text AS p`;
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const HEAD = Buffer.from('{"records":[');

/**
 * The `GET /records` body, written as binary COPY rows arrive (one CopyData message a row): each
 * record's stored text less its closing brace, `,"_nango_metadata":{…`, its cursor in base64url and
 * `"}}`, into pooled chunks handed to the page's stream as they fill. No value becomes a JS string
 * but the metadata of a record whose metadata bytes differ from the record before it (a sync's
 * batch shares them) and the last cursor.
 */
class PageWriter {
  private out = pageChunks.take();
  private at = HEAD.copy(this.out, 0);
  private started = false;
  count = 0;
  more = false;
  /** The metadata bytes of the record before, and their `"_nango_metadata":{…"cursor":"` text. */
  private lastMeta = Buffer.alloc(0);
  private prefix = Buffer.alloc(0);
  private lastCursor = Buffer.alloc(20);
  private lastCursorLength = 0;

  constructor(
    private readonly limit: number,
    private readonly page: PageStream,
  ) {}

  onMessage = (m: Buffer): void => {
    let at = 0;
    if (!this.started) {
      if (m.compare(COPY_SIGNATURE, 0, COPY_SIGNATURE.length, 0, COPY_SIGNATURE.length) !== 0) throw new Error('not a binary COPY header');
      at = COPY_SIGNATURE.length + 8 + m.readInt32BE(COPY_SIGNATURE.length + 4); // flags, then the header extension's length and bytes
      this.started = true;
    }
    // PostgreSQL sends a row a message; the header may come with the first, the trailer alone.
    while (at < m.length) at = this.row(m, at);
  };

  /** The row at `from` in `m`; returns the offset after it. */
  private row(m: Buffer, from: number): number {
    const fields = m.readInt16BE(from);
    if (fields === -1) return m.length; // the trailer
    if (fields !== 7) throw new Error(`a records COPY row of ${fields} fields`);
    const dataLength = m.readInt32BE(from + 2);
    const dataFrom = from + 6;
    const cursorFrom = dataFrom + dataLength + 4;
    const cursorTo = cursorFrom + m.readInt32BE(cursorFrom - 4);
    let end = cursorTo;
    for (let i = 0; i < 5; i++) end += 4 + Math.max(m.readInt32BE(end), 0);
    if (this.count === this.limit) {
      this.more = true;
      return end;
    }
    if (!sameBytes(this.lastMeta, m, cursorTo, end)) {
      this.lastMeta = Buffer.from(m.subarray(cursorTo, end));
      this.prefix = Buffer.from(metadataHead(metadataRow(m, cursorTo)));
    }
    this.reserve(dataLength + this.prefix.length + 2 * (cursorTo - cursorFrom) + 8);
    const out = this.out;
    let at = this.at;
    if (this.count > 0) out[at++] = 0x2c; // ,
    at += m.copy(out, at, dataFrom, dataFrom + dataLength - 1); // over its closing brace
    if (dataLength !== 2) out[at++] = 0x2c; // not after `{}`
    out.set(this.prefix, at);
    at += this.prefix.length;
    at = writeCursor(out, at, m, cursorFrom, cursorTo);
    out[at++] = 0x22; // "
    out[at++] = 0x7d; // }
    out[at++] = 0x7d;
    this.at = at;
    for (let i = cursorFrom; i < cursorTo; i++) this.lastCursor[i - cursorFrom] = m[i]!;
    this.lastCursorLength = cursorTo - cursorFrom;
    this.count++;
    return end;
  }

  /** The body's end, once the COPY has ended. */
  finish(): void {
    const nextCursor = this.more ? encodeCursor(this.lastCursor.toString('latin1', 0, this.lastCursorLength)) : null;
    const tail = Buffer.from(`],"next_cursor":${JSON.stringify(nextCursor)}}`);
    this.reserve(tail.length);
    this.at += tail.copy(this.out, this.at);
    this.page.push(this.out.subarray(0, this.at));
    this.page.end(this.count, nextCursor);
  }

  /** Room for `bytes` more: the chunk so far goes to the page when they do not fit; a record longer than a chunk gets a buffer of its own. */
  private reserve(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    if (this.at > 0) this.page.push(this.out.subarray(0, this.at));
    else pageChunks.give(this.out);
    this.out = bytes <= pageChunks.size ? pageChunks.take() : Buffer.allocUnsafe(bytes);
    this.at = 0;
  }
}

/** Whether `a` holds the bytes of `b[from, to)`; a loop, cheaper than Buffer#compare's call for ~100 bytes. Timestamps differ last, so it compares from the end. */
function sameBytes(a: Buffer, b: Buffer, from: number, to: number): boolean {
  if (a.length !== to - from) return false;
  for (let i = to - from - 1; i >= 0; i--) if (a[i] !== b[from + i]) return false;
  return true;
}

/** A COPY row's metadata fields (from `from`, in COPY_COLUMNS order) as the Row metadataHead reads. */
function metadataRow(m: Buffer, from: number): Row {
  const values: (string | null)[] = [];
  for (let at = from, i = 0; i < 5; i++) {
    const n = m.readInt32BE(at);
    at += 4;
    values.push(n === -1 ? null : m.toString('utf8', at, at + n));
    if (n > 0) at += n;
  }
  const [firstSeenAt, lastModifiedAt, deletedAt, lastAction, prunedAt] = values;
  return ['', firstSeenAt!, lastModifiedAt!, deletedAt ?? null, lastAction!, '', prunedAt ?? null];
}

/**
 * One page as the `GET /records` body (see readRecordsJson), streamed: the COPY runs in the
 * background and the stream ends, or fails, with it.
 */
export function readRecordsStream(db: Queryable, q: RecordsQuery): PageStream {
  const { text, values } = buildQuery(q, COPY_COLUMNS);
  const page = new PageStream();
  const writer = new PageWriter(q.limit, page);
  // A throw in finish fails the page too, rather than becoming an unhandled rejection.
  copyOut(db, `COPY (${inlineParams(text, values)}) TO STDOUT (FORMAT binary)`, writer.onMessage)
    .then(() => writer.finish())
    .catch((err: unknown) => page.fail(err instanceof Error ? err : new Error(String(err))));
  return page;
}

/** One page as the `GET /records` body in one buffer (see readRecordsStream). */
export async function readRecordsBody(db: Queryable, q: RecordsQuery): Promise<RecordsPageBody> {
  const page = readRecordsStream(db, q);
  const body = await page.collect();
  return { body, count: page.count, nextCursor: page.nextCursor };
}
