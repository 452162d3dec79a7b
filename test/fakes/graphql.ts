/**
 * @module A small GraphQL executor for fakes of GraphQL APIs: parses one operation (query or
 * mutation, variables with defaults, arguments, aliases, nested selections, inline fragments) and
 * answers only the fields selected, as a GraphQL server does. Root fields are resolved by the fake;
 * nested values are plain objects (a function value is called with the field's arguments).
 */

export type GqlValue = string | number | boolean | null | GqlValue[] | { [key: string]: GqlValue };

export interface Field {
  alias: string;
  name: string;
  args: Record<string, GqlValue>;
  selections: Field[];
}

export interface Operation {
  kind: 'query' | 'mutation';
  fields: Field[];
}

export class GraphQLSyntaxError extends Error {}

/** A root field's resolver: its arguments in, its value out (a GraphQLFieldError becomes an `errors[]` entry). */
export type Resolver = (args: Record<string, GqlValue>) => unknown;

export class GraphQLFieldError extends Error {
  constructor(
    message: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const TOKEN = /\s*(?:(#[^\n]*)|(\.\.\.)|([{}()[\]:!$=@,])|("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([_A-Za-z][_0-9A-Za-z]*))/y;

function tokenize(source: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    if (/^\s*$/.test(source.slice(TOKEN.lastIndex))) break;
    const m = TOKEN.exec(source);
    if (!m) throw new GraphQLSyntaxError(`Syntax Error: Unexpected character at ${TOKEN.lastIndex}`);
    if (m[1] !== undefined || m[3] === ',') continue;
    out.push(m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6]!);
  }
  return out;
}

class Parser {
  private i = 0;
  constructor(
    private readonly tokens: string[],
    private readonly variables: Record<string, unknown>,
  ) {}

  private peek(): string | undefined {
    return this.tokens[this.i];
  }

  private next(): string {
    const t = this.tokens[this.i++];
    if (t === undefined) throw new GraphQLSyntaxError('Syntax Error: Unexpected <EOF>');
    return t;
  }

  private expect(token: string): void {
    const t = this.next();
    if (t !== token) throw new GraphQLSyntaxError(`Syntax Error: Expected "${token}", found "${t}"`);
  }

  operation(): Operation {
    let kind: Operation['kind'] = 'query';
    if (this.peek() === 'query' || this.peek() === 'mutation') {
      kind = this.next() as Operation['kind'];
      if (this.peek() !== '(' && this.peek() !== '{') this.next(); // operation name
      if (this.peek() === '(') this.variableDefinitions();
    }
    const fields = this.selectionSet();
    if (this.peek() !== undefined) throw new GraphQLSyntaxError('Only one operation per document is supported');
    return { kind, fields };
  }

  private variableDefinitions(): void {
    this.expect('(');
    while (this.peek() !== ')') {
      this.expect('$');
      const name = this.next();
      this.expect(':');
      this.skipType();
      if (this.peek() === '=') {
        this.next();
        const fallback = this.value();
        if (this.variables[name] === undefined) this.variables[name] = fallback;
      }
    }
    this.expect(')');
  }

  private skipType(): void {
    if (this.peek() === '[') {
      this.next();
      this.skipType();
      this.expect(']');
    } else this.next();
    if (this.peek() === '!') this.next();
  }

  private selectionSet(): Field[] {
    this.expect('{');
    const fields: Field[] = [];
    while (this.peek() !== '}') {
      if (this.peek() === '...') {
        this.next();
        if (this.peek() === 'on') {
          this.next();
          this.next();
        }
        fields.push(...this.selectionSet());
        continue;
      }
      const alias = this.next();
      let name = alias;
      if (this.peek() === ':') {
        this.next();
        name = this.next();
      }
      const args = this.peek() === '(' ? this.arguments() : {};
      const selections = this.peek() === '{' ? this.selectionSet() : [];
      fields.push({ alias, name, args, selections });
    }
    this.expect('}');
    return fields;
  }

  private arguments(): Record<string, GqlValue> {
    this.expect('(');
    const args: Record<string, GqlValue> = {};
    while (this.peek() !== ')') {
      const name = this.next();
      this.expect(':');
      const value = this.value();
      if (value !== undefined) args[name] = value;
    }
    this.expect(')');
    return args;
  }

  /** undefined: a variable that was not given (the argument is then absent). */
  private value(): GqlValue | undefined {
    const t = this.next();
    if (t === '$') return this.variables[this.next()] as GqlValue | undefined;
    if (t === '[') {
      const list: GqlValue[] = [];
      while (this.peek() !== ']') list.push(this.value() ?? null);
      this.next();
      return list;
    }
    if (t === '{') {
      const obj: Record<string, GqlValue> = {};
      while (this.peek() !== '}') {
        const key = this.next();
        this.expect(':');
        const v = this.value();
        if (v !== undefined) obj[key] = v;
      }
      this.next();
      return obj;
    }
    if (t.startsWith('"')) return JSON.parse(t) as string;
    if (/^-?\d/.test(t)) return Number(t);
    if (t === 'true' || t === 'false') return t === 'true';
    if (t === 'null') return null;
    return t; // an enum value
  }
}

export function parseOperation(query: string, variables: Record<string, unknown>): Operation {
  return new Parser(tokenize(query), { ...variables }).operation();
}

/** Keeps only what `selections` asks for; a function value is called with the field's arguments. */
function project(value: unknown, selections: Field[]): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => project(v, selections));
  if (selections.length === 0 || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of selections) {
    if (field.name === '__typename') {
      out[field.alias] = source['__typename'] ?? null;
      continue;
    }
    if (!(field.name in source)) throw new GraphQLFieldError(`Cannot query field "${field.name}".`, { code: 'GRAPHQL_VALIDATION_FAILED' });
    const raw = source[field.name];
    out[field.alias] = project(typeof raw === 'function' ? (raw as Resolver)(field.args) : raw, field.selections);
  }
  return out;
}

export interface GraphQLResult {
  /** 400 for a document that does not parse or asks for unknown fields (as GraphQL servers answer validation errors). */
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[] };
}

export function execute(roots: { query: Record<string, Resolver>; mutation: Record<string, Resolver> }, query: unknown, variables: unknown): GraphQLResult {
  if (typeof query !== 'string') return { status: 400, body: { errors: [{ message: 'Must provide query string.', extensions: { code: 'BAD_USER_INPUT' } }] } };
  let op: Operation;
  try {
    op = parseOperation(query, typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : {});
  } catch (err) {
    if (err instanceof GraphQLSyntaxError) return { status: 400, body: { errors: [{ message: err.message, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] } };
    throw err;
  }
  const data: Record<string, unknown> = {};
  const errors: NonNullable<GraphQLResult['body']['errors']> = [];
  for (const field of op.fields) {
    const resolver = roots[op.kind][field.name];
    if (!resolver) {
      const type = op.kind === 'query' ? 'Query' : 'Mutation';
      return {
        status: 400,
        body: { errors: [{ message: `Cannot query field "${field.name}" on type "${type}".`, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] },
      };
    }
    try {
      data[field.alias] = project(resolver(field.args), field.selections);
    } catch (err) {
      if (!(err instanceof GraphQLFieldError)) throw err;
      if (err.extensions['code'] === 'GRAPHQL_VALIDATION_FAILED')
        return { status: 400, body: { errors: [{ message: err.message, extensions: err.extensions }] } };
      data[field.alias] = null;
      errors.push({ message: err.message, path: [field.alias], extensions: err.extensions });
    }
  }
  return { status: 200, body: errors.length ? { data: Object.values(data).every((v) => v === null) ? null : data, errors } : { data } };
}
