/**
 * @module sandbox/isolate/polyfills/headers — the Fetch standard's `Headers`: case-insensitive
 * names, values trimmed, iteration sorted by name with repeated values joined by ", " (set-cookie
 * kept apart), as Node's. Functions build one from a response's headers; `nango.uncontrolledFetch`'s
 * answer carries one (../fetch-response.ts), and so does `fetch`'s (../fetch.ts).
 */
type Pair = [string, string];

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const trim = (v: string): string => v.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');

const nameOf = (name: unknown, op: string): string => {
  const n = String(name);
  if (!TOKEN.test(n)) throw new TypeError(`Headers.${op}: "${n}" is an invalid header name.`);
  return n.toLowerCase();
};
const valueOf = (value: unknown, op: string): string => {
  const v = trim(String(value));
  if (/[\0\r\n]/.test(v)) throw new TypeError(`Headers.${op}: "${v}" is an invalid header value.`);
  return v;
};

export class Headers {
  #list: Pair[] = [];

  constructor(init?: unknown) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') throw new TypeError("Failed to construct 'Headers': The provided value is not of type 'HeadersInit'.");
    if (typeof (init as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<Iterable<unknown>>) {
        const p = Array.from(pair);
        if (p.length !== 2) throw new TypeError('Headers constructor: expected name/value pair to be length 2, found ' + p.length + '.');
        this.append(p[0], p[1]);
      }
    } else for (const k of Object.keys(init)) this.append(k, (init as Record<string, unknown>)[k]);
  }

  append(name: unknown, value: unknown): void {
    this.#list.push([nameOf(name, 'append'), valueOf(value, 'append')]);
  }

  delete(name: unknown): void {
    const n = nameOf(name, 'delete');
    this.#list = this.#list.filter((p) => p[0] !== n);
  }

  get(name: unknown): string | null {
    const n = nameOf(name, 'get');
    const values = this.#list.filter((p) => p[0] === n).map((p) => p[1]);
    return values.length === 0 ? null : values.join(', ');
  }

  getSetCookie(): string[] {
    return this.#list.filter((p) => p[0] === 'set-cookie').map((p) => p[1]);
  }

  has(name: unknown): boolean {
    const n = nameOf(name, 'has');
    return this.#list.some((p) => p[0] === n);
  }

  set(name: unknown, value: unknown): void {
    const n = nameOf(name, 'set');
    const v = valueOf(value, 'set');
    const i = this.#list.findIndex((p) => p[0] === n);
    if (i < 0) this.#list.push([n, v]);
    else {
      this.#list[i] = [n, v];
      this.#list = this.#list.filter((p, j) => p[0] !== n || j === i);
    }
  }

  /** The sorted and combined view the standard iterates. */
  #sorted(): Pair[] {
    const names = [...new Set(this.#list.map((p) => p[0]))].sort();
    return names.flatMap((n): Pair[] => (n === 'set-cookie' ? this.getSetCookie().map((v): Pair => [n, v]) : [[n, this.get(n)!]]));
  }

  forEach(fn: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [n, v] of this.#sorted()) fn.call(thisArg, v, n, this);
  }

  *entries(): IterableIterator<Pair> {
    yield* this.#sorted();
  }

  *keys(): IterableIterator<string> {
    for (const p of this.#sorted()) yield p[0];
  }

  *values(): IterableIterator<string> {
    for (const p of this.#sorted()) yield p[1];
  }

  [Symbol.iterator](): IterableIterator<Pair> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
