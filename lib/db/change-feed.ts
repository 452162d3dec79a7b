/**
 * @module db/change-feed — in-process caches of rows that Postgres tells us about when they change.
 * One dedicated client LISTENs on `switchyard_changes` (the triggers of migration 018 send
 * `<table>:<id>` when an update or delete commits, whoever made it); each `NotifiedCache` drops the
 * entries a change touches. While the client is down, notices may be lost: every cache is then
 * bypassed (reads go to the database) and emptied, and emptied again once LISTEN is back.
 * A read that a change overtakes (it started before the notice arrived) is answered but not kept.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const CHANGE_CHANNEL = 'switchyard_changes';

export interface Change {
  table: string;
  id: number;
}

type Listener = (change: Change | 'reset') => void;

const RECONNECT_MIN_MS = 100;
const BARRIER_PREFIX = 'barrier:';
/** How long a barrier waits for its own notice before giving up (the caches are then emptied). */
const BARRIER_TIMEOUT_MS = 5000;
const RECONNECT_MAX_MS = 5000;

export class ChangeFeed {
  private client: pg.Client | null = null;
  private listeners = new Set<Listener>();
  private stopped = false;
  private retryMs = RECONNECT_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private barrierSeq = 0;
  /** Other processes' barriers reach this connection too: tokens carry this process's own id. */
  private readonly barrierId = randomUUID();
  private readonly waiters = new Map<string, () => void>();
  /** Other channels' listeners (`listen`): notices that are not row changes. */
  private readonly channels = new Map<string, Set<(payload: string) => void>>();
  /** True while LISTEN is in place: only then may a cache answer from memory. */
  live = false;

  constructor(
    private readonly connectionString: string,
    private readonly log?: { warn(obj: object, msg: string): void },
  ) {}

  /** Connects and LISTENs; resolves once live (the first attempt's failure rejects). */
  async start(): Promise<void> {
    await this.connect();
  }

  /**
   * Calls `fn` with the payload of each notice on `channel` while LISTEN is in place (notices sent
   * while it is down are lost: callers must not depend on them). Register before start(), or the
   * channel is listened to from the next (re)connection on.
   */
  listen(channel: string, fn: (payload: string) => void): () => void {
    if (!/^[a-z_]+$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    const fns = this.channels.get(channel) ?? new Set();
    this.channels.set(channel, fns);
    fns.add(fn);
    return () => fns.delete(fn);
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(change: Change | 'reset'): void {
    for (const fn of this.listeners) fn(change);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.connectionString, keepAlive: true, application_name: 'switchyard-change-feed' });
    client.on('notification', (m) => {
      if (m.channel !== CHANGE_CHANNEL) {
        for (const fn of this.channels.get(m.channel) ?? []) fn(m.payload ?? '');
        return;
      }
      if (!m.payload) return;
      if (m.payload.startsWith(BARRIER_PREFIX)) return this.barrierArrived(m.payload);
      const at = m.payload.lastIndexOf(':');
      const id = Number(m.payload.slice(at + 1));
      if (at > 0 && Number.isInteger(id)) this.emit({ table: m.payload.slice(0, at), id });
      else this.emit('reset');
    });
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = null;
      this.down();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.log?.warn({ err }, 'change feed: LISTEN connection lost; caches bypassed until it is back');
      this.timer = setTimeout(() => {
        this.timer = null;
        this.connect().catch(() => undefined);
      }, this.retryMs);
      this.timer.unref();
      this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query([CHANGE_CHANNEL, ...this.channels.keys()].map((c) => `LISTEN ${c}`).join('; '));
    } catch (err) {
      lost(err as Error);
      throw err;
    }
    if (this.client !== client) return;
    // Whatever changed while no one listened is unknown: start from empty caches.
    this.emit('reset');
    this.live = true;
    this.retryMs = RECONNECT_MIN_MS;
  }

  private down(): void {
    this.live = false;
    this.emit('reset');
    // Caches are bypassed while down: nothing to wait for.
    for (const done of this.waiters.values()) done();
    this.waiters.clear();
  }

  /**
   * Resolves once every change committed before the call has reached the caches. Postgres delivers
   * notices in commit order, so a notice this connection sends now arrives after them: a process
   * that has just written (a token refresh, an API write) waits for it before answering, and no
   * later request of its own is answered from an entry that write made stale.
   */
  async barrier(): Promise<void> {
    const client = this.client;
    if (!client || !this.live) return;
    const token = `${BARRIER_PREFIX}${this.barrierId}:${++this.barrierSeq}`;
    const arrived = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        // Not seen in time (the connection is failing): forget what is cached rather than trust it.
        this.waiters.delete(token);
        this.emit('reset');
        resolve();
      }, BARRIER_TIMEOUT_MS);
      timer.unref();
      this.waiters.set(token, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    try {
      await client.query(`SELECT pg_notify($1, $2)`, [CHANGE_CHANNEL, token]);
    } catch {
      this.waiters.get(token)?.();
      this.waiters.delete(token);
      this.emit('reset');
      return;
    }
    await arrived;
  }

  private barrierArrived(token: string): void {
    const done = this.waiters.get(token);
    this.waiters.delete(token);
    done?.();
  }

  /** The LISTEN connection's backend pid (tests end it to exercise the reconnect). */
  async backendPid(): Promise<number | null> {
    if (!this.client) return null;
    const { rows } = await this.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return rows[0]?.pid ?? null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    this.down();
    this.listeners.clear();
    await client?.end().catch(() => undefined);
  }
}

export interface NotifiedCacheOptions<V> {
  /** Most entries kept; one not used for a while goes first (see `NotifiedCache`). */
  max: number;
  /** Which changes touch which entries: 'all' empties the cache, a predicate drops the entries it matches, null ignores the change. */
  affected(change: Change): 'all' | ((value: V) => boolean) | null;
}

interface Entry<V> {
  value: V;
  /** The lookup count when the entry last went to the back of the eviction order. */
  stamp: number;
}

/**
 * A bounded map kept only while its ChangeFeed is live, emptied or trimmed by the feed's changes.
 * Eviction is nearly LRU: a hit moves its entry to the back of the order only when more than `max / 2`
 * lookups have passed since it last went there, so most hits write nothing. An entry used at least
 * once every `max / 2` lookups is never evicted (each lookup adds at most one entry).
 */
export class NotifiedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** Bumped by every change that touches this cache: a read that started before one is not kept. */
  private generation = 0;
  private lookups = 0;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly opts: NotifiedCacheOptions<V>,
  ) {
    feed.subscribe((change) => {
      if (change === 'reset') return this.clear();
      const hit = opts.affected(change);
      if (hit === null) return;
      this.generation++;
      if (hit === 'all') this.entries.clear();
      else for (const [k, e] of this.entries) if (hit(e.value)) this.entries.delete(k);
    });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** The cached value, else `load()`'s (kept when not null and no change arrived meanwhile). */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    if (!this.feed.live) return load();
    const now = ++this.lookups;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      if (now - hit.stamp > this.opts.max >> 1) {
        this.entries.delete(key);
        this.entries.set(key, hit);
        hit.stamp = now;
      }
      return hit.value;
    }
    const generation = this.generation;
    const value = await load();
    if (value !== null && generation === this.generation && this.feed.live) {
      this.entries.set(key, { value, stamp: now });
      if (this.entries.size > this.opts.max) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }
}
