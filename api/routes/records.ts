/**
 * @module api/routes/records — `GET /records` (and `/records/`, which the Node client calls): the
 * records cache of one connection and model, cursor-paged, in Nango's shape. `serveRecords` serves
 * the same for the GET endpoints that syncs declare.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { BadRequest, ValidationFailed } from '../../lib/errors.js';
import { parseCursor, type RecordsFilter } from '../../features/records/read.js';
import { RecordsReadAhead } from '../../features/records/read-ahead.js';
import type { PageStream } from '../../features/records/page-stream.js';
import { pruneRecords } from '../../features/records/store.js';
import { BASE_VARIANT, storedModel, variantNameSchema } from '../../features/syncs/variants.js';
import type { AppDeps, AppEnv } from '../context.js';
import { nodeResponse, preparedAnswer, sendText } from '../node-response.js';
import { defineRoute } from '../route.js';
import { check, parseQuery } from '../validate.js';
import { connectionIdSchema } from './connections.js';
import { uniqueKeySchema } from './integrations.js';

const recordsHeaders = z.object({ 'connection-id': connectionIdSchema, 'provider-config-key': uniqueKeySchema });

const modelSchema = z.string().regex(/^[A-Z][a-zA-Z0-9_-]+$/, 'a model name starts with an uppercase letter, then letters, digits, _ or -');
const isoDate = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'expected an ISO 8601 date-time, e.g. 2025-09-18T15:20:35.941305+00:00' });
const FILTERS = ['added', 'updated', 'deleted'] as const satisfies readonly RecordsFilter[];

/** A record's cursor: one this API returned, or one Nango's records service did (features/records/read.ts). */
const cursorSchema = z
  .string()
  .min(1)
  .max(1000)
  .refine((v) => {
    try {
      parseCursor(v);
      return true;
    } catch {
      return false;
    }
  }, "not a cursor this API returned (nor one of Nango's)");

const queryFields = {
  /** A sync variant's records (POST /sync/{name}/variant/{variant}); `base` or none: the sync's own. */
  variant: variantNameSchema.optional(),
  cursor: cursorSchema.optional(),
  modified_after: isoDate.optional(),
  delta: isoDate.optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
  filter: z
    .string()
    .transform((s) => s.split(',').map((f) => f.trim().toLowerCase()))
    .pipe(z.array(z.enum(FILTERS, { error: 'expected added, updated or deleted' })).min(1))
    .optional(),
  ids: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string().min(1).max(256)).max(100)).optional(),
};

const recordsQuery = z.object({ model: modelSchema, ...queryFields }).strict();
const endpointQuery = z.object({ model: modelSchema.optional(), ...queryFields }).strict();

type RecordsQueryInput = z.output<typeof endpointQuery>;

export type RecordsResponder = (c: Context<AppEnv>, target: { integrationKey: string; connectionId: string; models: string[] }) => Promise<Response>;

/** Records of a model in Nango's shape (each page written from the stored bytes, not through this schema: features/records/read.ts). */
export const recordsResponse = z.object({
  records: z.array(
    z
      .object({
        _nango_metadata: z.object({
          first_seen_at: z.string(),
          last_modified_at: z.string(),
          last_action: z.enum(['ADDED', 'UPDATED', 'DELETED']),
          deleted_at: z.string().nullable(),
          pruned_at: z.string().nullable(),
          cursor: z.string(),
        }),
      })
      .catchall(z.unknown()),
  ),
  next_cursor: z.string().nullable(),
});

/** Each API's pages read ahead (features/records/read-ahead.ts), by its dependencies. */
const readAheads = new WeakMap<AppDeps, RecordsReadAhead>();
export function readAhead(deps: AppDeps): RecordsReadAhead {
  let r = readAheads.get(deps);
  if (!r) readAheads.set(deps, (r = new RecordsReadAhead(deps.db)));
  return r;
}

async function connectionPkOf(deps: AppDeps, c: Context<AppEnv>, target: { integrationKey: string; connectionId: string }): Promise<number> {
  const connection = await deps.lookups.connection(c.get('environment').id, target.integrationKey, target.connectionId);
  if (!connection) throw new BadRequest('unknown_connection', 'Provided ConnectionId and ProviderConfigKey does not match a valid connection');
  return connection.id;
}

async function respond(
  deps: AppDeps,
  c: Context<AppEnv>,
  target: { integrationKey: string; connectionId: string },
  model: string,
  q: RecordsQueryInput,
): Promise<Response> {
  const connectionPk = await connectionPkOf(deps, c, target);
  const page = await readAhead(deps).read({
    connectionPk,
    model: storedModel(model, q.variant ?? BASE_VARIANT),
    cursor: q.cursor,
    modifiedAfter: q.modified_after ?? q.delta,
    filter: q.filter,
    ids: q.ids,
    limit: q.limit,
  });
  return sendPage(deps, c, page);
}

const JSON_UTF8 = 'application/json; charset=UTF-8';

/**
 * A page on the node response as it is written: with its length when it was whole before its first
 * byte, else in chunks. A page that fails after its headers destroys the response, so that the
 * client sees an error rather than a body that ends early.
 */
async function sendPage(deps: AppDeps, c: Context<AppEnv>, page: PageStream): Promise<Response> {
  const outgoing = nodeResponse(c);
  if (!outgoing) return sendText(c, 200, JSON_UTF8, await page.collect());
  const { marker, headers } = preparedAnswer(c, 200);
  headers['content-type'] = JSON_UTF8;
  if (page.ended) headers['content-length'] = String(page.length);
  outgoing.writeHead(200, headers);
  outgoing.cork();
  page.pipe({
    chunk: (bytes, written) => void outgoing.write(bytes, (err) => err || written()),
    end: () => void outgoing.end(),
    fail: (err) => {
      deps.log.warn({ err, reqId: c.get('requestId') }, 'a records page failed after its first bytes were sent; the response is cut short');
      outgoing.destroy(err);
    },
  });
  process.nextTick(() => outgoing.uncork());
  return marker;
}

/** Serves a sync's records at the GET endpoint it declares; `model` may be left out when the sync has one. */
export function serveRecords(deps: AppDeps): RecordsResponder {
  return async (c, target) => {
    const q = check(endpointQuery, parseQuery(c.req.url), 'invalid_query_params');
    let model = q.model;
    if (model === undefined) {
      if (target.models.length !== 1) {
        throw new ValidationFailed('invalid_query_params', [
          { code: 'invalid_type', message: `this sync has several models; pass one of ${target.models.join(', ')}`, path: ['model'] },
        ]);
      }
      model = target.models[0]!;
    } else if (!target.models.includes(model)) {
      throw new ValidationFailed('invalid_query_params', [
        { code: 'invalid_value', message: `this sync's models are ${target.models.join(', ')}`, path: ['model'] },
      ]);
    }
    return respond(deps, c, target, model, q);
  };
}

export const listRecords = defineRoute({
  method: 'get',
  path: '/records',
  serves: ['/records', '/records/'],
  operationId: 'listRecords',
  summary: "A connection's cached records of one model, oldest change first, cursor-paged",
  description: 'An unknown connection answers 400 unknown_connection, as Nango does.',
  tag: 'records',
  auth: 'secret_key',
  scope: 'environment:records:read',
  request: { headers: recordsHeaders, query: recordsQuery },
  responses: { 200: recordsResponse },
  errors: [],
}).handle(async ({ deps, headers: h, query: q }, c) =>
  respond(deps, c, { integrationKey: h['provider-config-key'], connectionId: h['connection-id'] }, q.model, q),
);

const pruneBody = z
  .object({
    model: modelSchema,
    variant: variantNameSchema.optional(),
    until_cursor: cursorSchema,
    limit: z.coerce.number().int().min(1).max(10_000).default(1000),
  })
  .strict();

export const pruneRecordsRoute = defineRoute({
  method: 'patch',
  path: '/records/prune',
  operationId: 'pruneRecords',
  summary: "Empty the payload of a connection's cached records of one model, up to a cursor included; their metadata stays",
  description:
    'Oldest cursor first, at most `limit` (default 1000) per call; `has_more` says whether records up to `until_cursor` remain unpruned. A pruned record reads as its id with `_nango_metadata.pruned_at` set, until a sync saves it again. An unknown connection answers 400 unknown_connection, as Nango does.',
  tag: 'records',
  auth: 'secret_key',
  scope: 'environment:records:write',
  request: { headers: recordsHeaders, body: pruneBody },
  responses: { 200: z.object({ count: z.number().int(), has_more: z.boolean() }) },
  errors: [],
}).handle(async ({ deps, headers: h, body }, c) => {
  const connectionPk = await connectionPkOf(deps, c, { integrationKey: h['provider-config-key'], connectionId: h['connection-id'] });
  const model = storedModel(body.model, body.variant ?? BASE_VARIANT);
  const { count, hasMore } = await pruneRecords(deps.db, connectionPk, model, parseCursor(body.until_cursor), body.limit);
  return { count, has_more: hasMore };
});
