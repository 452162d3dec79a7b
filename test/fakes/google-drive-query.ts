/**
 * @module The two small languages of Drive v3 requests: the `q` search filter and the `fields`
 * partial-response selector.
 */

export class QueryError extends Error {}

// ---------------------------------------------------------------------------------------------
// q — supports: '<id>' in parents, name/mimeType (=, !=, contains), trashed/starred (=, !=),
// modifiedTime/createdTime (=, !=, <, <=, >, >=), combined with and / or / not / parentheses.

export interface QueryableFile {
  name: string;
  mimeType: string;
  parents: string[];
  trashed: boolean;
  starred: boolean;
  modifiedTime: string;
  createdTime: string;
}

export type FilePredicate = (file: QueryableFile) => boolean;

type Token = { kind: 'string'; value: string } | { kind: 'word'; value: string } | { kind: 'op'; value: string };

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const ch = q[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "'") {
      let value = '';
      i++;
      while (i < q.length && q[i] !== "'") {
        if (q[i] === '\\') i++;
        value += q[i] ?? '';
        i++;
      }
      if (i >= q.length) throw new QueryError('unterminated string');
      i++;
      tokens.push({ kind: 'string', value });
    } else if ('()'.includes(ch)) {
      tokens.push({ kind: 'op', value: ch });
      i++;
    } else if ('=!<>'.includes(ch)) {
      const two = q.slice(i, i + 2);
      const op = ['!=', '<=', '>='].includes(two) ? two : ch;
      if (op === '!') throw new QueryError('unexpected !');
      tokens.push({ kind: 'op', value: op });
      i += op.length;
    } else {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(q.slice(i));
      if (!match) throw new QueryError(`unexpected character ${ch}`);
      tokens.push({ kind: 'word', value: match[0] });
      i += match[0].length;
    }
  }
  return tokens;
}

class QueryParser {
  private pos = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly rootId: string,
  ) {}

  parse(): FilePredicate {
    const predicate = this.or();
    if (this.pos < this.tokens.length) throw new QueryError('unexpected trailing input');
    return predicate;
  }

  private peekWord(word: string): boolean {
    const token = this.tokens[this.pos];
    return token?.kind === 'word' && token.value.toLowerCase() === word;
  }

  private next(): Token {
    const token = this.tokens[this.pos++];
    if (!token) throw new QueryError('unexpected end of query');
    return token;
  }

  private or(): FilePredicate {
    const parts = [this.and()];
    while (this.peekWord('or')) {
      this.pos++;
      parts.push(this.and());
    }
    return (f) => parts.some((p) => p(f));
  }

  private and(): FilePredicate {
    const parts = [this.unary()];
    while (this.peekWord('and')) {
      this.pos++;
      parts.push(this.unary());
    }
    return (f) => parts.every((p) => p(f));
  }

  private unary(): FilePredicate {
    if (this.peekWord('not')) {
      this.pos++;
      const inner = this.unary();
      return (f) => !inner(f);
    }
    const token = this.tokens[this.pos];
    if (token?.kind === 'op' && token.value === '(') {
      this.pos++;
      const inner = this.or();
      const close = this.next();
      if (close.kind !== 'op' || close.value !== ')') throw new QueryError('expected )');
      return inner;
    }
    return this.clause();
  }

  private clause(): FilePredicate {
    const first = this.next();
    if (first.kind === 'string') {
      const keyword = this.next();
      const collection = this.next();
      if (keyword.value.toLowerCase() !== 'in' || collection.value !== 'parents') {
        throw new QueryError('only "<id> in parents" membership is supported');
      }
      const parentId = first.value === 'root' ? this.rootId : first.value;
      return (f) => f.parents.includes(parentId);
    }
    if (first.kind !== 'word') throw new QueryError('expected a field name');
    const operator = this.next();
    const op = operator.kind === 'word' ? operator.value.toLowerCase() : operator.value;
    return fieldPredicate(first.value, op, this.next());
  }
}

function fieldPredicate(field: string, op: string, value: Token): FilePredicate {
  switch (field) {
    case 'name':
    case 'mimeType':
      return stringPredicate((f) => f[field], op, expectString(value));
    case 'trashed':
    case 'starred':
      return booleanPredicate((f) => f[field], op, value);
    case 'modifiedTime':
    case 'createdTime':
      return timePredicate((f) => f[field], op, expectString(value));
    default:
      throw new QueryError(`unsupported field ${field}`);
  }
}

function expectString(token: Token): string {
  if (token.kind !== 'string') throw new QueryError('expected a quoted string');
  return token.value;
}

function stringPredicate(get: (f: QueryableFile) => string, op: string, value: string): FilePredicate {
  if (op === '=') return (f) => get(f) === value;
  if (op === '!=') return (f) => get(f) !== value;
  if (op === 'contains') return (f) => get(f).toLowerCase().includes(value.toLowerCase());
  throw new QueryError(`unsupported operator ${op}`);
}

function booleanPredicate(get: (f: QueryableFile) => boolean, op: string, token: Token): FilePredicate {
  if (token.kind !== 'word' || !['true', 'false'].includes(token.value)) throw new QueryError('expected true or false');
  const value = token.value === 'true';
  if (op === '=') return (f) => get(f) === value;
  if (op === '!=') return (f) => get(f) !== value;
  throw new QueryError(`unsupported operator ${op}`);
}

function timePredicate(get: (f: QueryableFile) => string, op: string, value: string): FilePredicate {
  const target = Date.parse(value);
  if (Number.isNaN(target)) throw new QueryError('invalid date');
  const compare: Record<string, (a: number) => boolean> = {
    '=': (a) => a === target,
    '!=': (a) => a !== target,
    '<': (a) => a < target,
    '<=': (a) => a <= target,
    '>': (a) => a > target,
    '>=': (a) => a >= target,
  };
  const test = compare[op];
  if (!test) throw new QueryError(`unsupported operator ${op}`);
  return (f) => test(Date.parse(get(f)));
}

export function parseDriveQuery(q: string, rootId: string): FilePredicate {
  return new QueryParser(tokenize(q), rootId).parse();
}

// ---------------------------------------------------------------------------------------------
// fields — e.g. "nextPageToken, files(id, name, parents)", "files/id", "*"

/** Selected keys; null means "the whole value". */
export type FieldTree = Map<string, FieldTree | null>;

export function parseFields(spec: string): FieldTree {
  const cursor = { s: spec, i: 0 };
  const tree = parseFieldList(cursor);
  if (cursor.i < spec.length) throw new QueryError(`Invalid field selection ${spec}`);
  return tree;
}

interface Cursor {
  s: string;
  i: number;
}

function skipSpaces(c: Cursor): void {
  while (c.s[c.i] === ' ') c.i++;
}

function parseFieldList(c: Cursor): FieldTree {
  const tree: FieldTree = new Map();
  for (;;) {
    skipSpaces(c);
    parseFieldItem(c, tree);
    skipSpaces(c);
    if (c.s[c.i] !== ',') return tree;
    c.i++;
  }
}

function parseFieldItem(c: Cursor, tree: FieldTree): void {
  const match = /^[A-Za-z0-9_*]+/.exec(c.s.slice(c.i));
  if (!match) throw new QueryError(`Invalid field selection ${c.s}`);
  const name = match[0];
  c.i += name.length;
  if (c.s[c.i] === '(') {
    c.i++;
    const sub = parseFieldList(c);
    if (c.s[c.i] !== ')') throw new QueryError(`Invalid field selection ${c.s}`);
    c.i++;
    mergeField(tree, name, sub);
  } else if (c.s[c.i] === '/') {
    c.i++;
    const sub: FieldTree = new Map();
    parseFieldItem(c, sub);
    mergeField(tree, name, sub);
  } else {
    tree.set(name, null);
  }
}

function mergeField(tree: FieldTree, name: string, sub: FieldTree): void {
  const existing = tree.get(name);
  if (existing === null) return;
  if (existing === undefined) tree.set(name, sub);
  else for (const [key, value] of sub) existing.set(key, value);
}

/** Field names that appear in `tree` (at one level) but are not in `allowed`. */
export function unknownFields(tree: FieldTree, allowed: ReadonlySet<string>): string[] {
  return [...tree.keys()].filter((key) => key !== '*' && !allowed.has(key));
}

export function projectFields(value: Record<string, unknown>, tree: FieldTree): Record<string, unknown> {
  if (tree.has('*')) return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    if (!(key in value)) continue;
    const item = value[key];
    if (sub === null) out[key] = item;
    else if (Array.isArray(item)) out[key] = item.map((e: unknown) => (isPlainObject(e) ? projectFields(e, sub) : e));
    else if (isPlainObject(item)) out[key] = projectFields(item, sub);
    else out[key] = item;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
