/**
 * @module db/where — a WHERE clause built together with its parameters, and the one-page SELECT of a
 * list (keyset or offset paging): what every filtered list in features/ used to hand-build.
 *
 *   const w = new Where('environment_id = ?', environmentId);
 *   if (f.status) w.and('status = ?', f.status);
 *   if (f.beforeId !== undefined) w.and('id < ?', f.beforeId);        // keyset: the previous page's last id
 *   const { rows } = await db.query(...pageQuery('SELECT * FROM alerts', w, { orderBy: 'id DESC', limit: f.limit }));
 *
 * In a condition, each `?` is the next of its values, in order ($n numbering is done here). A
 * function condition gets the placeholders instead, for a value used more than once. (Postgres's
 * jsonb `?` operator cannot be written with `?` here: use a function condition or jsonb_exists.)
 */
export class Where {
  readonly values: unknown[] = [];
  private readonly conditions: string[] = [];

  constructor(condition?: string, ...values: unknown[]) {
    if (condition !== undefined) this.and(condition, ...values);
  }

  /** A placeholder (`$n`) for this value. */
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** ANDs a condition: `'status = ?', status`, or `(p) => \`(a ILIKE ${p} OR b ILIKE ${p})\`, pattern`. */
  and(condition: string | ((...placeholders: string[]) => string), ...values: unknown[]): this {
    const placeholders = values.map((v) => this.param(v));
    if (typeof condition === 'function') {
      this.conditions.push(condition(...placeholders));
      return this;
    }
    let i = 0;
    const sql = condition.replace(/\?/g, () => {
      if (i >= placeholders.length) throw new Error(`more ? than values in ${condition}`);
      return placeholders[i++]!;
    });
    if (i !== placeholders.length) throw new Error(`more values than ? in ${condition}`);
    this.conditions.push(sql);
    return this;
  }

  /** The conditions joined with AND (`TRUE` when there are none). */
  toString(): string {
    return this.conditions.length ? this.conditions.join(' AND ') : 'TRUE';
  }
}

export interface PageSpec {
  /** e.g. `id DESC`, `created_at DESC, id DESC`: a unique order, so keyset pages neither skip nor repeat. */
  orderBy: string;
  limit: number;
  offset?: number;
}

/** `<select> WHERE <where> ORDER BY <orderBy> LIMIT $n [OFFSET $m]` and its parameters, for `db.query(text, values)`. */
export function pageQuery(select: string, where: Where, page: PageSpec): [text: string, values: unknown[]] {
  const values = [...where.values, page.limit];
  let text = `${select} WHERE ${where} ORDER BY ${page.orderBy} LIMIT $${values.length}`;
  if (page.offset !== undefined) {
    values.push(page.offset);
    text += ` OFFSET $${values.length}`;
  }
  return [text, values];
}
