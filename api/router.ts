/**
 * @module api/router — Hono's default router with the match of the proxy's paths kept: every path
 * under `/proxy` matches the same handlers (the `*` middleware, the proxy's chain, the `/*` catch-all,
 * none with parameters), so the route trie is searched once per method and not on every proxied call
 * (RegExpRouter, which would need no search, refuses this route set). Kept only while no other pattern
 * could match under the prefix: one that could (a parameter or a literal there) turns the keeping off.
 */
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

export class PrefixMatchRouter<T> implements Router<T> {
  name = 'PrefixMatchRouter';
  readonly #inner: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  readonly #prefix: string;
  readonly #patterns: string[] = [];
  #kept: boolean | undefined;
  readonly #matches = new Map<string, Result<T>>();

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  add(method: string, path: string, handler: T): void {
    this.#patterns.push(path);
    this.#inner.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    const under = path === this.#prefix ? 'at' : path.startsWith(`${this.#prefix}/`) ? 'below' : null;
    if (under === null || !(this.#kept ??= this.#samePerPath())) return this.#inner.match(method, path);
    const key = `${method} ${under}`;
    let result = this.#matches.get(key);
    if (!result) this.#matches.set(key, (result = this.#inner.match(method, path)));
    return result;
  }

  /** Whether the patterns that can match below the prefix are only wildcards and the prefix's own. */
  #samePerPath(): boolean {
    const own = new Set(['*', '/*', this.#prefix, `${this.#prefix}/*`]);
    return this.#patterns.every((p) => own.has(p) || !(p.startsWith('/:') || p.startsWith('/*') || p.startsWith(this.#prefix)));
  }
}
