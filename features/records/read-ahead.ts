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
 * is dropped once it holds more than `maxBytes` of JSON before a request takes it (4 × 16 MB at most
 * are held). A request may take a page still being read: it is sent as it is written.
 */
import type { Queryable } from '../../lib/db/pool.js';
import type { PageStream } from './page-stream.js';
import { readRecordsStream, type RecordsQuery } from './read.js';

interface Ahead {
  page: PageStream;
  at: number;
}

export interface ReadAheadOptions {
  ttlMs?: number;
  maxPages?: number;
  maxLimit?: number;
  /** A page read ahead is dropped once it holds more bytes than this before a request takes it. */
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

  /**
   * One page, ready to send (its first bytes written, or all of them): the page read ahead for this
   * very query when there is a fresh one that has not failed, else read now; once it has ended the
   * next page is read ahead. Rejects when the page failed before its first byte.
   */
  async read(q: RecordsQuery): Promise<PageStream> {
    const key = keyOf(q);
    const ahead = this.pages.get(key);
    this.pages.delete(key);
    let page: PageStream | null = null;
    if (ahead && performance.now() - ahead.at <= this.ttlMs) {
      // A failed read ahead, or one too big to hold, answers nothing: the request reads the page itself.
      const usable = await ahead.page.ready().then(
        () => !ahead.page.failed && !ahead.page.discarded,
        () => false,
      );
      if (usable) page = ahead.page;
      else ahead.page.discard();
    } else ahead?.page.discard();
    if (!page) {
      page = readRecordsStream(this.db, q);
      await page.ready();
    }
    const sent = page;
    if (q.limit <= this.maxLimit) void sent.finished.then(() => sent.nextCursor !== null && this.start({ ...q, cursor: sent.nextCursor }));
    return sent;
  }

  /** Whether the page of this query is held or in flight (stale or not). */
  holds(q: RecordsQuery): boolean {
    return this.pages.has(keyOf(q));
  }

  /** Resolves once every page in flight has been read (tests use it to change records after a read ahead). */
  async settled(): Promise<void> {
    await Promise.all([...this.pages.values()].map((a) => a.page.finished));
  }

  private start(q: RecordsQuery): void {
    const now = performance.now();
    for (const [k, a] of this.pages) if (now - a.at > this.ttlMs) this.drop(k, a);
    while (this.pages.size >= this.maxPages) {
      const [k, a] = this.pages.entries().next().value!;
      this.drop(k, a);
    }
    const key = keyOf(q);
    const held = this.pages.get(key);
    if (held) this.drop(key, held);
    const page = readRecordsStream(this.db, q);
    page.holdAtMost = this.maxBytes;
    this.pages.set(key, { page, at: now });
  }

  private drop(key: string, ahead: Ahead): void {
    this.pages.delete(key);
    ahead.page.discard();
  }
}
