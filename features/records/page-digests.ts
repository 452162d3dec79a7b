/**
 * @module features/records/page-digests — page-level change detection for sync runs. A page is the
 * array a script hands to batchSave; its digest is taken over V8's serialisation of that array (cheap,
 * and any difference in content, key order or record order gives another digest). After a page is
 * saved, the run notes (page digest, the model's schema fingerprint) → the digest of its records'
 * stored hashes, in order. A later run handed a page with the same digest under the same schema would
 * validate it into the same records and hash them the same; when the stored hashes of its ids still
 * digest to what was noted (nothing wrote them since), every record of the page is unchanged, and it
 * is noted as seen without validating, serialising or hashing each record. Anything else (a changed
 * record, pages shifted by an insert upstream, another schema, records written or deleted since)
 * takes the per-record path.
 */
import { hash } from 'node:crypto';
import { serialize } from 'node:v8';
import { z } from 'zod';
import type { Queryable } from '../../lib/db/pool.js';

const digest = (text: string) => hash('sha256', text, 'base64');

/**
 * The digest of a page as handed to batchSave, over V8's structured serialisation of it: about twice
 * as fast as JSON text for a page of records, and it keeps apart what JSON text conflates but a
 * validator does not (a Date and its ISO string, NaN and null). Equal content built the same way
 * serialises alike; the same content in another internal form (a string stored two bytes per
 * character, another Node version) only misses a skip. Null when it cannot be serialised (a function).
 */
export function pageDigest(records: unknown[]): string | null {
  try {
    return hash('sha256', serialize(records), 'base64');
  } catch {
    return null;
  }
}

/** The digest of a page's stored hashes, in the order of its ids; null when one of them is not stored. */
export function storedDigest(hashes: readonly (string | undefined)[]): string | null {
  return hashes.every((h) => h !== undefined) ? digest(hashes.join(',')) : null;
}

const fingerprints = new WeakMap<z.ZodType, string | null>();

/**
 * Bump when what a page's records become once saved changes for the same schema: how validators are
 * built from JSON Schema (zodFromJsonSchema, features/scripts/catalog.ts), the canonical JSON, the content hash.
 * Every page is then checked record by record once.
 */
const SAVE_RULES = 'v1';

/**
 * Notes that `schema` was built from the JSON Schema `source` and does nothing else (a deployed
 * model's validator): its fingerprint is that source's.
 */
export function builtFrom(schema: z.ZodType, source: unknown): void {
  fingerprints.set(schema, digest(`${SAVE_RULES}\n${JSON.stringify(source)}`));
}

/**
 * What a model's validator does: for one built from a JSON Schema (builtFrom), that schema; otherwise
 * as far as zod's JSON Schema of it tells (what it accepts and what it outputs), null when that
 * cannot describe it (a transform: its output is code), and then its pages are always checked record
 * by record. A pre-built model's refinements are code and not in it (they change with Switchyard's
 * code, as does SAVE_RULES).
 */
export function schemaFingerprint(schema: z.ZodType): string | null {
  if (fingerprints.has(schema)) return fingerprints.get(schema)!;
  let fingerprint: string | null;
  try {
    const io = (side: 'input' | 'output') => JSON.stringify(z.toJSONSchema(schema, { io: side }));
    fingerprint = digest(`${SAVE_RULES}\n${io('input')}\n${io('output')}`);
  } catch {
    fingerprint = null;
  }
  fingerprints.set(schema, fingerprint);
  return fingerprint;
}

const NOTE_COLUMNS = '(connection_pk, model, page_hash, schema_hash, content_hash, run_id)';
const NOTE_CONFLICT =
  'ON CONFLICT (connection_pk, model, page_hash) DO UPDATE SET schema_hash = EXCLUDED.schema_hash, content_hash = EXCLUDED.content_hash, run_id = EXCLUDED.run_id';

/** A page about to be saved: its digest and schema, and what the last run that saved it noted (if any). */
export interface PageCheck {
  page: string;
  schema: string;
  /** The digest of the stored hashes the last run left for it; absent: no run saved this page under this schema. */
  noted?: string;
}

/** One sync run's page digests: the previous ones by model, read once, and the counts for the run's log. */
export class RunPageDigests {
  private readonly previous = new Map<string, Promise<Map<string, string>>>();
  /** Per model: pages saved, and those of them skipped as unchanged. */
  readonly counts = new Map<string, { pages: number; skipped: number }>();

  constructor(
    private readonly db: Queryable,
    private readonly connectionPk: number,
    private readonly runId: string,
  ) {}

  /** The page's digests, and what the last run noted for it; null when the page cannot take part. */
  async check(model: string, schema: z.ZodType | undefined, records: unknown[]): Promise<PageCheck | null> {
    if (records.length === 0) return null;
    const fingerprint = schema && schemaFingerprint(schema);
    const page = fingerprint ? pageDigest(records) : null;
    if (!fingerprint || !page) return null;
    const noted = (await this.notedFor(model, fingerprint)).get(page);
    return noted === undefined ? { page, schema: fingerprint } : { page, schema: fingerprint, noted };
  }

  /** Notes a saved page (in the transaction that saved it), and counts it. */
  async note(tx: Queryable, model: string, check: PageCheck, stored: string, skipped: boolean): Promise<void> {
    await tx.query(`INSERT INTO record_page_digests ${NOTE_COLUMNS} VALUES ($1, $2, $3, $4, $5, $6) ${NOTE_CONFLICT}`, [
      this.connectionPk,
      model,
      check.page,
      check.schema,
      stored,
      this.runId,
    ]);
    this.count(model, skipped);
  }

  /**
   * Notes an unchanged page in one statement (one round trip, where a transaction takes five): locks
   * the run's row as a save's claim does, notes the ids as seen by the run and the page's digest, and
   * counts it. False, with nothing written, when the run's row is gone.
   */
  async noteUnchanged(model: string, check: PageCheck, noted: string, ids: string[]): Promise<boolean> {
    const { rows } = await this.db.query<{ n: number }>(
      `WITH run AS (SELECT id FROM sync_runs WHERE id = $6 FOR SHARE),
            seen AS (INSERT INTO sync_run_seen (run_id, model, external_ids) SELECT id, $2, $7 FROM run),
            page AS (INSERT INTO record_page_digests ${NOTE_COLUMNS} SELECT $1, $2, $3, $4, $5, id FROM run ${NOTE_CONFLICT})
       SELECT count(*)::int AS n FROM run`,
      [this.connectionPk, model, check.page, check.schema, noted, this.runId, ids],
    );
    if (rows[0]!.n === 0) return false;
    this.count(model, true);
    return true;
  }

  private count(model: string, skipped: boolean): void {
    const c = this.counts.get(model) ?? { pages: 0, skipped: 0 };
    this.counts.set(model, { pages: c.pages + 1, skipped: c.skipped + (skipped ? 1 : 0) });
  }

  private notedFor(model: string, fingerprint: string): Promise<Map<string, string>> {
    const key = `${model}\0${fingerprint}`;
    let noted = this.previous.get(key);
    if (!noted) {
      noted = this.db
        .query<{ page_hash: string; content_hash: string }>(
          'SELECT page_hash, content_hash FROM record_page_digests WHERE connection_pk = $1 AND model = $2 AND schema_hash = $3',
          [this.connectionPk, model, fingerprint],
        )
        .then(({ rows }) => new Map(rows.map((r) => [r.page_hash, r.content_hash])));
      this.previous.set(key, noted);
    }
    return noted;
  }
}

/** Once a run has succeeded: the digests of pages it did not save go (the table holds the last run's pages). */
export async function keepRunPageDigests(db: Queryable, connectionPk: number, models: string[], runId: string): Promise<void> {
  await db.query('DELETE FROM record_page_digests WHERE connection_pk = $1 AND model = ANY($2) AND run_id <> $3', [connectionPk, models, runId]);
}
