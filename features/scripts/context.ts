/**
 * @module features/scripts/context — the context a script runs with: the provider HTTP client bound to one
 * connection, pagination, the records cache, metadata, checkpoints and the run's log.
 */
import type { z } from 'zod';
import type { ConnectionDeps } from '../connections/service.js';
import { freshConnection, providerTarget } from '../connections/target.js';
import { twoStepFields, type StoredCredentials } from '../connections/credentials.js';
import { wsseToken } from '../connections/wsse.js';
import { getConnectionByPk, setMetadata, type Connection } from '../connections/store.js';
import { withTransaction, type Queryable } from '../../lib/db/pool.js';
import { assertUrlAllowed } from '../../lib/http/index.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKey,
  isUnsafeToRepeat,
  mayHaveReachedProvider,
  mayRetry,
  wantsIdempotencyKey,
} from '../../lib/http/retry-policy.js';
import { readRecords } from '../records/read.js';
import {
  deleteRecords,
  isDuplicateRecord,
  noteSeen,
  prepareRecords,
  savePrepared,
  saveRecords,
  storedHashes,
  uniqueIds,
  type SaveResult,
  type StoredHashes,
} from '../records/store.js';
import { storedDigest, type PageCheck, type RunPageDigests } from '../records/page-digests.js';
import type { RunSeen } from '../records/delete-scope.js';
import type { WriteLane } from './write-lane.js';
import type { WriteMarks } from './write-marks.js';
import type {
  ConnectionInfo,
  HttpMethod,
  PaginateConfig,
  ProxyConfig,
  ScriptContext,
  ScriptCredentials,
  ScriptResponse,
  SyncContext,
} from '../../sdk/types.js';
import { logLine, withHelpers, type Helpers } from '../../sdk/helpers.js';
import { paginate, withPaginateDefaults, type PagePosition, type PageResume } from './paginate.js';
import { findProvider } from '../providers/store.js';
import { findEnvironmentById } from '../environments/store.js';
import { getIntegration } from '../integrations/store.js';
import { publicIntegration } from '../integrations/present.js';
import { uncontrolledFetch } from './uncontrolled-fetch.js';
import { responseData } from './response-data.js';
import { getEnvironmentVariables } from '../environments/variables.js';

export class InvalidRecords extends Error {
  constructor(
    readonly model: string,
    readonly problems: { id: unknown; issues: string[] }[],
  ) {
    super(`${problems.length} ${model} record(s) failed the model's schema`);
  }
}

export interface RunHooks {
  kind: 'action' | 'sync';
  runId: string;
  /** zod schemas of the models a script may save, by name. */
  models: Record<string, z.ZodType>;
  log(entry: { level: 'info' | 'warn' | 'error'; message: string; fields?: Record<string, unknown> }): void;
  seenRunId?: string;
  /**
   * First in every transaction that writes records: a sync run locks its run row here, so a variant
   * deleted meanwhile (features/syncs/variants) either waits for the page or makes it roll back.
   */
  claim?(tx: Queryable): Promise<void>;
  /** Called in the transaction that wrote the records, so a count never lands without them or they without it. */
  onSaved?(model: string, result: SaveResult, tx: Queryable): void | Promise<void>;
  onDeleted?(model: string, count: number, tx: Queryable): void | Promise<void>;
  onInvalid?(model: string, problems: { id: unknown; issues: string[] }[]): void;
  checkpoint?: { get(): Promise<unknown>; save(value: unknown): Promise<void>; clear?(): Promise<void> };
  /**
   * Deletion detection a sync script asks for by model (deleteRecordsFromPreviousExecutions,
   * trackDeletesStart/End): noted on the run, applied once when the run finishes successfully.
   */
  deletes?: { track(model: string): Promise<void>; sweep(model: string): Promise<void> };
  /** When the last successful run of this sync started. */
  lastSyncDate?: Date;
  /** Saved page positions of this run, by paginate call, for resuming after a crash. */
  pages?: { positions: Record<string, unknown>; save(key: string, position: PagePosition): Promise<void> };
  isFullSync?: boolean;
  /** A sync run: each model's stored hashes are read once, and unchanged records are left out before the upsert. */
  compareStored?: boolean;
  /** With compareStored: a page saved unchanged by the last run is noted as seen without validating or hashing its records. */
  pageDigests?: RunPageDigests;
  /** With seenRunId and compareStored: the ids the run saw and the stored hashes it read, for the scope of its deletion detection. */
  seen?: RunSeen;
  /**
   * With pageDigests: notes an unchanged page of the model (ids seen, page digest; claim and onSaved
   * included) in one statement, true when it did; false: the page goes through claim, onSaved and
   * the note in a transaction.
   */
  skipUnchanged?(model: string, ids: string[], check: PageCheck, noted: string): Promise<boolean>;
  /** With compareStored: models' stored hashes whose read the caller has already started (by model as stored), so that it overlaps the first fetch. */
  storedAhead?: ReadonlyMap<string, Promise<StoredHashes | null>>;
  /** The variant a sync run runs (Nango's `nango.variant`); `base` when absent. */
  variant?: string;
  /** Where the run keeps a model's records (a variant's under `Model::variant`); the model itself when absent. */
  storedModel?: (model: string) => string;
  /**
   * A sync run's ordered writes (features/scripts/write-lane.ts): batchSave returns once its page is
   * queued, and every other write and read of the run's state waits its turn behind it. The caller
   * drains the lane when the script ends.
   */
  lane?: WriteLane;
  /**
   * The run's durable marks of writes without an Idempotency-Key (write-marks.ts): each is marked
   * before it leaves, so a retry of the run knows it may have landed. Without: runs nobody retries.
   */
  writes?: WriteMarks;
}

export function createScriptContext(deps: ConnectionDeps, connection: Connection, hooks: RunHooks): SyncContext<Record<string, unknown>, unknown> {
  const context = {
    environmentId: connection.environmentId,
    integration: connection.integrationKey,
    connectionId: connection.connectionId,
    runId: hooks.runId,
    kind: hooks.kind,
  };

  let calls = 0;
  async function send<T>(rawMethod: string, config: ProxyConfig): Promise<ScriptResponse<T>> {
    // Counted before any await: the n-th call of a run keeps its position (and key) on every retry.
    const position = calls++;
    const method = rawMethod.toUpperCase() as HttpMethod;
    const query = typeof config.params === 'string' ? Object.fromEntries(new URLSearchParams(config.params)) : config.params;
    const retryOn = Array.isArray(config.retryOn) ? config.retryOn : [];
    const target = await providerTarget(deps, connection);
    if (config.baseUrlOverride) await assertUrlAllowed(config.baseUrlOverride, deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
    const isJson = config.data !== undefined && !(config.data instanceof Uint8Array) && typeof config.data !== 'string';
    const retries = Math.max(0, Math.min(config.retries ?? 0, 10));
    const headers: Record<string, string> = { accept: 'application/json', ...(isJson ? { 'content-type': 'application/json' } : {}), ...config.headers };
    if (wantsIdempotencyKey(method, config.headers, retries)) headers[IDEMPOTENCY_KEY_HEADER] = idempotencyKey(hooks.runId, position);
    const unsafe = isUnsafeToRepeat(method, headers);
    const write = { method, endpoint: config.endpoint };
    for (let attempt = 1; ; attempt++) {
      if (unsafe) await hooks.writes?.before(write);
      try {
        const res = await deps.http.requestOrThrow({
          method,
          baseUrl: config.baseUrlOverride ?? target.baseUrl,
          path: config.endpoint,
          query,
          headers,
          body: config.data === undefined ? undefined : isJson ? JSON.stringify(config.data) : (config.data as string | Uint8Array),
          auth: target.authAt(config.baseUrlOverride ?? target.baseUrl),
          context,
          ...(target.provider.retry && { rateLimitHeaders: target.provider.retry }),
        });
        if (unsafe) await hooks.writes?.after(write, true);
        return { status: res.status, headers: res.headers, data: responseData(res.body, res.headers, config.responseType) as T };
      } catch (err) {
        if (unsafe) await hooks.writes?.after(write, mayHaveReachedProvider(err));
        // Retried here, briefly, when the policy allows; a 429 is left to Temporal, which waits
        // exactly what the provider asked, durably, even across a worker restart.
        // `retryOn` adds statuses to retry (within `retries`), under the same write policy.
        const listed = retryOn.includes((err as { status?: number }).status ?? -1) && !isUnsafeToRepeat(method, headers);
        if ((err as { name?: string }).name === 'RateLimited' || !(listed || mayRetry(err, method, headers)) || attempt > retries) throw err;
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  function validated(model: string, records: { id: string | number }[]): { id: string }[] {
    const schema = hooks.models[model];
    if (!schema) throw new Error(`model ${model} is not declared by this integration's scripts`);
    const good: { id: string }[] = [];
    const bad: { id: unknown; issues: string[] }[] = [];
    for (const r of records) {
      const result = schema.safeParse(r);
      if (result.success && typeof (result.data as { id?: unknown }).id === 'string') good.push(result.data as { id: string });
      else
        bad.push({
          id: (r as { id?: unknown }).id,
          issues: result.success ? ['id must be a string'] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
        });
    }
    if (bad.length) {
      hooks.onInvalid?.(model, bad);
      hooks.log({ level: 'warn', message: `${bad.length} ${model} record(s) failed validation and were not saved`, fields: { examples: bad.slice(0, 5) } });
    }
    return good;
  }

  /** A script's paginate call, with its provider's `proxy.paginate` defaults where the script says nothing. */
  async function* paginateWithDefaults<T>(c: PaginateConfig, resume: PageResume | undefined): AsyncGenerator<T[], void, undefined> {
    const defaults = (await findProvider(deps.db, connection.environmentId, connection.provider))?.paginate;
    yield* paginate<T>((cfg) => send(cfg.method ?? 'GET', cfg), { ...c, paginate: withPaginateDefaults(c.paginate, defaults) }, resume);
  }

  async function connectionInfo(fresh: Connection): Promise<ConnectionInfo> {
    return {
      connection_id: fresh.connectionId,
      provider_config_key: fresh.integrationKey,
      connection_config: fresh.connectionConfig,
      connectionId: fresh.connectionId,
      providerConfigKey: fresh.integrationKey,
      provider: fresh.provider,
      connectionConfig: fresh.connectionConfig,
      metadata: fresh.metadata,
      credentials: scriptCredentials(fresh.credentials),
      created_at: fresh.createdAt.toISOString(),
      updated_at: fresh.updatedAt.toISOString(),
    };
  }

  const sync = (what: string) => {
    if (hooks.kind !== 'sync') throw new Error(`${what} is only available in syncs`);
  };

  const at = hooks.storedModel ?? ((model: string) => model);
  // A sync run reads its models' stored hashes once and skips unchanged records before writing.
  const storedByModel = new Map<string, Promise<StoredHashes | null>>();
  const storedFor = (model: string) => {
    let stored = storedByModel.get(model);
    if (!stored) {
      stored = (hooks.storedAhead?.get(at(model)) ?? storedHashes(deps.db, connection.id, at(model))).then((hashes) => {
        if (hashes) hooks.seen?.read(at(model), hashes);
        return hashes;
      });
      storedByModel.set(model, stored);
    }
    return stored;
  };

  /** A page validated, serialised and hashed; `whole` when every record of it was valid. */
  const prepare = (model: string, records: { id: string | number }[]) => {
    const good = validated(model, records);
    return { prepared: prepareRecords(good), whole: good.length === records.length };
  };

  type NotePage = (tx: Queryable, storedDigest: string) => Promise<void>;

  /** Writes a prepared page; `note` notes its digest once every record of it is stored (never for a page with invalid records: they are reported by every run). */
  const savePage =
    (model: string, { prepared, whole }: ReturnType<typeof prepare>, note?: NotePage) =>
    async () => {
      const stored = hooks.compareStored ? await storedFor(model) : null;
      const write = (insertNew: boolean) =>
        withTransaction(deps.db, async (tx) => {
          await hooks.claim?.(tx);
          const result = await savePrepared(tx, connection.id, at(model), prepared, { seenRunId: hooks.seenRunId, stored, insertNew });
          await hooks.onSaved?.(model, result, tx);
          // Once committed, the page's records are stored with exactly these hashes.
          const saved = stored && whole ? storedDigest(prepared.hashes) : null;
          if (note && saved) await note(tx, saved);
          return result;
        });
      let saved: Awaited<ReturnType<typeof write>>;
      try {
        saved = await write(true);
      } catch (err) {
        // Another writer stored one of the ids the run took for new: that transaction rolled back whole; save the page again, upserting.
        if (!isDuplicateRecord(err)) throw err;
        saved = await write(false);
      }
      // Committed: later pages of the run compare with what is stored now.
      for (const [id, hash] of saved.hashes ?? []) stored?.set(id, hash);
      hooks.seen?.saw(at(model), prepared.ids);
    };

  /** The page's ids when its records are all stored as the last run that saved this page left them (call it with the stored hashes current). */
  const unchangedPage = async (model: string, records: { id: unknown }[], noted: string): Promise<string[] | null> => {
    const stored = await storedFor(model);
    if (!stored) return null;
    const ids = uniqueIds(records);
    return storedDigest(ids.map((id) => stored.get(id))) === noted ? ids : null;
  };

  /** Notes an unchanged page: its ids as seen, none added or updated. */
  const skipPage = (model: string, ids: string[], check: PageCheck, noted: string, digests: RunPageDigests) => async () => {
    const once = await hooks.skipUnchanged?.(model, ids, check, noted);
    if (!once) {
      await withTransaction(deps.db, async (tx) => {
        await hooks.claim?.(tx);
        if (hooks.seenRunId) await noteSeen(tx, hooks.seenRunId, at(model), ids);
        await hooks.onSaved?.(model, { added: 0, updated: 0, unchanged: ids.length }, tx);
        await digests.note(tx, at(model), check, noted, true);
      });
    }
    hooks.seen?.saw(at(model), ids);
  };

  /** A write (or a read of what the run wrote) after the run's queued writes, when there is a lane. */
  const inTurn = <T>(op: () => Promise<T>): Promise<T> => (hooks.lane ? hooks.lane.run(op) : op());

  let paginateCalls = 0;
  const ctx: SyncContext<Record<string, unknown>, unknown> = withHelpers<Omit<SyncContext<Record<string, unknown>, unknown>, keyof Helpers>>({
    connectionId: connection.connectionId,
    providerConfigKey: connection.integrationKey,
    provider: connection.provider,
    get: (c) => send('GET', c),
    post: (c) => send('POST', c),
    put: (c) => send('PUT', c),
    patch: (c) => send('PATCH', c),
    delete: (c) => send('DELETE', c),
    proxy: (c) => send(c.method ?? 'GET', c),
    paginate: <T>(c: Parameters<SyncContext<unknown, unknown>['paginate']>[0]) => {
      // The n-th paginate call of a run, over one endpoint, resumes where that call stopped.
      const key = `${paginateCalls++}:${c.method ?? 'GET'} ${c.endpoint}`;
      const pages = hooks.pages;
      const resume = pages
        ? {
            start: (pages.positions[key] as PagePosition | undefined) ?? null,
            // Queued behind the pages before it (and not awaited): the next page is handed over while they commit.
            save: async (pos: PagePosition) => (hooks.lane ? hooks.lane.enqueue(() => pages.save(key, pos)) : pages.save(key, pos)),
          }
        : undefined;
      return paginateWithDefaults<T>(c, resume);
    },
    async getConnection() {
      const current = (await getConnectionByPk(deps.db, deps.box, connection.id)) ?? connection;
      return connectionInfo(await freshConnection(deps, current));
    },
    async getToken() {
      const current = (await getConnectionByPk(deps.db, deps.box, connection.id)) ?? connection;
      const credentials = scriptCredentials((await freshConnection(deps, current)).credentials);
      if (credentials.type === 'OAUTH2') return credentials.access_token;
      if (credentials.type === 'OAUTH2_CC' || credentials.type === 'TWO_STEP') return credentials.token;
      return credentials;
    },
    async getMetadata<T>() {
      return ((await getConnectionByPk(deps.db, deps.box, connection.id))?.metadata ?? {}) as T;
    },
    async setMetadata(metadata) {
      await inTurn(() => setMetadata(deps.db, [connection.id], metadata, false));
    },
    async updateMetadata(metadata) {
      await inTurn(() => setMetadata(deps.db, [connection.id], metadata, true));
    },
    async getEnvironmentVariables() {
      return getEnvironmentVariables(deps.db, deps.box, connection.environmentId);
    },
    async getWebhookURL() {
      const env = await findEnvironmentById(deps.db, connection.environmentId);
      return env ? `${deps.config.publicUrl}/webhook/${env.uuid}/${encodeURIComponent(connection.integrationKey)}` : null;
    },
    async getIntegration(queries) {
      const env = await findEnvironmentById(deps.db, connection.environmentId);
      const integration = await getIntegration(deps.db, deps.box, connection.environmentId, connection.integrationKey);
      if (!env || !integration) throw new Error(`the integration ${connection.integrationKey} no longer exists`);
      return publicIntegration(deps, env, integration, queries?.include ?? []);
    },
    uncontrolledFetch: (options) => uncontrolledFetch(deps.http, options, context),
    async batchSave(records, model) {
      const digests = hooks.compareStored ? hooks.pageDigests : undefined;
      const check = digests ? await digests.check(at(model), hooks.models[model], records) : null;
      const noted = check?.noted;
      // The CPU work is done while the previous page commits; a page the last run saved is only digested.
      const work = noted ? null : prepare(model, records);
      // One page in flight: wait for the previous one (so the stored hashes are current), then queue this one.
      await hooks.lane?.drain();
      const unchanged = noted ? await unchangedPage(model, records, noted) : null;
      const write =
        digests && check && noted && unchanged
          ? skipPage(model, unchanged, check, noted, digests)
          : savePage(model, work ?? prepare(model, records), digests && check ? (tx, saved) => digests.note(tx, at(model), check, saved, false) : undefined);
      if (hooks.lane) hooks.lane.enqueue(write);
      else await write();
      return true;
    },
    async batchUpdate(records, model) {
      if (!hooks.models[model]) throw new Error(`model ${model} is not declared by this integration's scripts`);
      const partial = records.map((r) => ({ ...r, id: String(r.id) }));
      await inTurn(() =>
        withTransaction(deps.db, async (tx) => {
          await hooks.claim?.(tx);
          const result = await saveRecords(tx, connection.id, at(model), partial, { merge: true, seenRunId: hooks.seenRunId });
          await hooks.onSaved?.(model, result, tx);
        }),
      );
      hooks.seen?.saw(
        at(model),
        partial.map((r) => r.id),
      );
      return true;
    },
    async batchDelete(records, model) {
      if (!hooks.models[model]) throw new Error(`model ${model} is not declared by this integration's scripts`);
      const ids = records.map((r) => String(r.id));
      await inTurn(async () => {
        const stored = hooks.compareStored ? await storedFor(model) : null;
        // Still stored (as tombstones): a later save of them upserts.
        for (const id of ids) if (stored?.has(id)) stored.set(id, '');
        await withTransaction(deps.db, async (tx) => {
          await hooks.claim?.(tx);
          const count = await deleteRecords(tx, connection.id, at(model), ids);
          await hooks.onDeleted?.(model, count, tx);
        });
      });
      return true;
    },
    log: (...args) => hooks.log(logLine(args)),
    async getCheckpoint() {
      sync('getCheckpoint');
      return (await inTurn(async () => hooks.checkpoint?.get())) ?? null;
    },
    async saveCheckpoint(value) {
      sync('saveCheckpoint');
      // After the pages saved before it: a checkpoint never gets ahead of the records it stands for.
      await inTurn(async () => hooks.checkpoint?.save(value));
    },
    async clearCheckpoint() {
      sync('clearCheckpoint');
      await inTurn(async () => (hooks.checkpoint?.clear ? hooks.checkpoint.clear() : hooks.checkpoint?.save(null)));
    },
    async deleteRecordsFromPreviousExecutions(model) {
      sync('deleteRecordsFromPreviousExecutions');
      if (!hooks.models[model]) throw new Error(`model ${model} is not declared by this integration's scripts`);
      await inTurn(async () => hooks.deletes?.sweep(model));
    },
    async trackDeletesStart(model) {
      sync('trackDeletesStart');
      if (!hooks.models[model]) throw new Error(`model ${model} is not declared by this integration's scripts`);
      await inTurn(async () => hooks.deletes?.track(model));
    },
    async trackDeletesEnd(model) {
      sync('trackDeletesEnd');
      if (!hooks.models[model]) throw new Error(`model ${model} is not declared by this integration's scripts`);
      await inTurn(async () => hooks.deletes?.sweep(model));
    },
    async listRecordsPage(model, cursor) {
      sync('listRecords');
      if (!hooks.models[model]) throw new Error(`model ${model} is not declared by this integration's scripts`);
      // After the run's queued writes, so a function reads what it saved.
      return inTurn(() => readRecords(deps.db, { connectionPk: connection.id, model: at(model), limit: 100, ...(cursor !== undefined && { cursor }) }));
    },
    isFullSync: hooks.isFullSync ?? false,
    variant: hooks.variant ?? 'base',
    ...(hooks.lastSyncDate && { lastSyncDate: hooks.lastSyncDate }),
  });
  return ctx;
}

/** Credentials as a script sees them (Nango's shapes; the refresh token and client secret stay on the host). */
function scriptCredentials(c: StoredCredentials): ScriptCredentials {
  switch (c.type) {
    case 'OAUTH2':
      return { type: 'OAUTH2', access_token: c.access_token, ...(c.expires_at && { expires_at: c.expires_at }), raw: c.raw ?? {} };
    case 'OAUTH2_CC':
      return {
        type: 'OAUTH2_CC',
        token: c.token ?? '',
        ...(c.expires_at && { expires_at: c.expires_at }),
        ...(c.client_id && { client_id: c.client_id }),
        raw: c.raw ?? {},
      };
    case 'TWO_STEP':
      return { ...twoStepFields(c), type: 'TWO_STEP', token: c.token ?? '', ...(c.expires_at && { expires_at: c.expires_at }), raw: c.raw ?? {} };
    case 'API_KEY':
      return { type: 'API_KEY', apiKey: c.apiKey };
    case 'BASIC':
      return { type: 'BASIC', username: c.username, password: c.password };
    case 'OAUTH1':
      return { type: 'OAUTH1', oauth_token: c.oauth_token, oauth_token_secret: c.oauth_token_secret, raw: c.raw ?? {} };
    case 'SIGNATURE':
      return { type: 'SIGNATURE', username: c.username, password: c.password, token: wsseToken(c.username, c.password, new Date()) };
    case 'TBA':
      return { type: 'TBA', token_id: c.token_id, token_secret: c.token_secret };
    default:
      return { type: 'NONE' };
  }
}

export type { ScriptContext };
