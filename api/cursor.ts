/**
 * @module api/cursor — the opaque cursor of the keyset-paged lists whose key is one positive integer
 * (alerts by id, webhook deliveries by seq): base64url of the number. The page query itself is
 * lib/db/where.ts `pageQuery`.
 */
import { z } from 'zod';

/** `?cursor=`: base64url of a positive safe integer, decoded to that integer (else a 400 naming the field). */
export const idCursorSchema = z
  .string()
  .max(64)
  .transform((text, ctx) => {
    const id = Number(Buffer.from(text, 'base64url').toString('utf8'));
    if (!Number.isSafeInteger(id) || id <= 0) {
      ctx.addIssue({ code: 'custom', message: 'not a valid cursor' });
      return z.NEVER;
    }
    return id;
  });

function encodeIdCursor(id: number): string {
  return Buffer.from(String(id)).toString('base64url');
}

/**
 * One page out of `limit + 1` rows fetched: the first `limit` rows, and the cursor of the last one
 * when there were more (else null).
 */
export function idPage<T>(rows: T[], limit: number, keyOf: (row: T) => number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeIdCursor(keyOf(items[items.length - 1]!)) : null };
}
