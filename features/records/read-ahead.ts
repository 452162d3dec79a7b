/**
 * @module features/records/read-ahead — after answering a full page of `GET /records`, the API starts
 * reading the page its `next_cursor` names, so that PostgreSQL runs that query while the client
 * receives and parses this page; the client's next request takes it if it comes within `ttlMs`.
 * Pages are otherwise read strictly one after another, and on a 2-core machine PostgreSQL's part
 * of each page was about half its time (bench/RESULTS.md, 2026-11-23 records read).
 *
 * Why a page read ahead is a correct answer. The page answers exactly the query the client then sends
 * (same connection, model, filters, limit, and the cursor the API itself returned), as the records
 * cache stood at a moment after the page before it was read and at most `ttlMs` before the request:
 * the answer a slightly slower client, or a slightly slower network, would have got. Nothing is
 * lost by that moment being earlier than the request. Every change to a record (an add, an update, a
 * deletion, which keeps a tombstone) takes a new `cursor` from one sequence, so a record changed after
 * the page was read has a cursor above every cursor that page holds, and the next pages (read later)
 * list it with its new content; it may also be in the page read ahead with its old content, as it
 * would have been in a page read at that moment. Only `emptyCache` deletes rows outright, and a page
 * read before it lists what was there, as any page read before it does. The connection is looked up
 * (and the caller authenticated) for every request before a page read ahead is taken, so a deleted
 * connection or a revoked key is refused as before.
 *
 * Bounds: at most `maxPages` pages held or in flight per process (older ones are dropped), each taken
 * once, dropped after `ttlMs`; only pages of at most `maxLimit` records are read ahead, and a page
 * over `maxBytes` of JSON is not kept (4 × 16 MB at most are held).
 */
import type { Queryable } from '../../lib/db/pool.js';
import { readRecordsBody, type RecordsPageBody, type RecordsQuery } from './read.js';

interface Ahead {
  page: Promise<RecordsPageBody | null>;
  at: number;
}

export interface ReadAheadOptions {
  ttlMs?: number;
  maxPages?: number;
  maxLimit?: number;
  /** A page read ahead whose body is longer (in bytes) is dropped once read. */
  maxBytes?: number;
}

function keyOf(q: RecordsQuery): string {
  return JSON.stringify([
    q.connectionPk,
    q.model,
    q.cursor ?? null,
    q.modifiedAfter instanceof Date ? q.modifiedAfter.toISOString() : (q.modifiedAfter ?? null),
    q.filter ? [...new Set(q.filter)].sort() : null,
    q.ids ?? null,
    q.limit,
  ]);
}

export class RecordsReadAhead {
  private readonly pages = new Map<string, Ahead>();
  private readonly ttlMs: number;
  private readonly maxPages: number;
  private readonly maxLimit: number;
  private readonly maxBytes: number;

  constructor(
    private readonly db: Queryable,
    opts: ReadAheadOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 2000;
    this.maxPages = opts.maxPages ?? 4;
    this.maxLimit = opts.maxLimit ?? 1000;
    this.maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  }

  /** One page: the page read ahead for this very query when there is a fresh one, else read now; then the next page is read ahead. */
  async read(q: RecordsQuery): Promise<RecordsPageBody> {
    const key = keyOf(q);
    const ahead = this.pages.get(key);
    this.pages.delete(key);
    let page = ahead && performance.now() - ahead.at <= this.ttlMs ? await ahead.page : null;
    page ??= await readRecordsBody(this.db, q);
    if (page.nextCursor !== null && q.limit <= this.maxLimit) this.start({ ...q, cursor: page.nextCursor });
    return page;
  }

  /** Whether the page of this query is held or in flight (stale or not). */
  holds(q: RecordsQuery): boolean {
    return this.pages.has(keyOf(q));
  }

  /** Resolves once every page in flight has been read (tests use it to change records after a read ahead). */
  async settled(): Promise<void> {
    await Promise.all([...this.pages.values()].map((a) => a.page));
  }

  private start(q: RecordsQuery): void {
    const now = performance.now();
    for (const [k, a] of this.pages) if (now - a.at > this.ttlMs) this.pages.delete(k);
    while (this.pages.size >= this.maxPages) this.pages.delete(this.pages.keys().next().value!);
    // A failed read ahead, or one too big to hold, answers nothing: the request reads the page itself.
    const page = readRecordsBody(this.db, q).then(
      (p) => (p.body.length <= this.maxBytes ? p : null),
      () => null,
    );
    this.pages.set(keyOf(q), { page, at: now });
  }
}
