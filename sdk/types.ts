/**
 * @module sdk/types — the shapes scripts are written against: createAction, createSync, createTool
 * and createOnEvent definitions and the context every script receives (Switchyard's `ctx` and
 * Nango's `nango` are the same object at run time). Scripts are typed against Nango's surface
 * (./nango.ts); the host-side context types here are what the platform implements.
 */
import type { z } from 'zod';
import type { ActionError } from './errors.js';
import type {
  CreateActionResponse,
  CreateOnEventResponse,
  CreateSyncResponse,
  CreateToolResponse,
  EnvironmentVariable,
  NangoActionBase,
  NangoSyncBase,
  ScriptLoggerMethods,
  ZodCheckpoint,
  ZodMetadata,
  ZodModel,
} from './nango.js';

export type * from './nango.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** An endpoint as the platform serves it (scripts declare Nango's {@link NangoSyncEndpointV2}). */
export interface Endpoint {
  method: HttpMethod;
  path: string;
  group?: string;
}

export interface ProxyConfig {
  endpoint: string;
  method?: HttpMethod | Lowercase<HttpMethod>;
  /** Query parameters, as an object or an already encoded query string (`a=1&b=2`). */
  params?: string | Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  data?: unknown;
  /** Attempts after the first on 429 / 5xx / network errors, inside this call (writes: only with an Idempotency-Key). */
  retries?: number;
  /** Extra statuses to retry on (within `retries`), e.g. a provider's 409 while it is busy. */
  retryOn?: number[] | null;
  baseUrlOverride?: string;
  /** Always this script's connection: a script reaches its own connection only. */
  connectionId?: string;
  providerConfigKey?: string;
  /** As axios on Node: `arraybuffer` and `stream` give the body's bytes (a Buffer; a stream of it in the sandbox), `text` and `blob` its text, else JSON when it parses. */
  responseType?: 'json' | 'text' | 'arraybuffer' | 'stream' | 'blob';
  decompress?: boolean;
}

export interface ScriptResponse<T = unknown> {
  status: number;
  data: T;
  headers: Record<string, string | string[]>;
}

export interface PaginateOptions {
  type?: 'cursor' | 'link' | 'offset' | 'page';
  /** Path in the response of the array of items (dotted). */
  response_path?: string;
  limit?: number | string;
  limit_name_in_request?: string;
  /** cursor: where the next cursor is in the response, and the query name to send it as. */
  cursor_path_in_response?: string;
  cursor_name_in_request?: string;
  /** link: where the next URL is in the response body. */
  link_path_in_response_body?: string;
  /** link: the relation of the next URL in the `Link` response header (e.g. `next`); when set, the body is not read for it. */
  link_rel_in_response_header?: string;
  /** offset: the query name of the offset. */
  offset_name_in_request?: string;
  /** offset: the first offset (default 0; 1 for page numbers that start at 1). */
  offset_start_value?: number;
  /** offset: `by-response-size` (default) adds the items received; `per-page` adds 1 (a page number). */
  offset_calculation_method?: 'per-page' | 'by-response-size';
  /** page: the query name of the page number (default `page`). */
  page_name_in_request?: string;
  /** page: the first page number (default 1). */
  page_start_value?: number;
  /** Called with each raw response before its items are yielded. */
  on_page?: (page: { nextPageParam?: string | number | undefined; response: ScriptResponse }) => Promise<void>;
}

export type PaginateConfig = ProxyConfig & { paginate?: PaginateOptions };

export interface ConnectionInfo {
  /** Nango's field names. */
  connection_id: string;
  provider_config_key: string;
  connection_config: Record<string, unknown>;
  /** Switchyard's field names (the same values). */
  connectionId: string;
  providerConfigKey: string;
  provider: string;
  connectionConfig: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  credentials: ScriptCredentials;
  created_at: string;
  updated_at: string;
}

/** A connection's credentials as `getConnection().credentials` and `getToken()` give them (Nango's shapes). */
export type ScriptCredentials =
  | { type: 'OAUTH2'; access_token: string; expires_at?: string; raw: Record<string, unknown> }
  | { type: 'OAUTH2_CC'; token: string; expires_at?: string; client_id?: string; raw: Record<string, unknown> }
  | { type: 'TWO_STEP'; token: string; expires_at?: string; raw: Record<string, unknown>; [field: string]: unknown }
  | { type: 'API_KEY'; apiKey: string }
  | { type: 'BASIC'; username: string; password: string }
  | { type: 'OAUTH1'; oauth_token: string; oauth_token_secret: string; raw: Record<string, unknown> }
  | { type: 'TBA'; token_id: string; token_secret: string }
  | { type: 'SIGNATURE'; username: string; password: string; token: string }
  | { type: 'NONE' };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'http' | 'verbose' | 'silly';

/**
 * `log(message)`, `log(message, fields)` (Switchyard), `log(...values, { level })` (Nango):
 * every line lands in the run's logs.
 */
export interface ScriptLogger {
  (...args: unknown[]): void;
}

/** What `uncontrolledFetch` answers: the parts of a fetch Response a function reads (the body is buffered). */
export interface FetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly url: string;
  readonly headers: { get(name: string): string | null; has(name: string): boolean; forEach(fn: (value: string, name: string) => void): void };
  text(): Promise<string>;
  json(): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- as fetch's
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface UncontrolledFetchOptions {
  url: string | { readonly href: string };
  method?: HttpMethod;
  headers?: Record<string, string> | undefined;
  /** Bytes: the sandbox's `fetch` with a binary body. */
  body?: string | Uint8Array<ArrayBuffer> | null;
}

/** An integration as `GET /integrations/:uniqueKey` shows it (Nango's shape). */
export interface IntegrationInfo {
  unique_key: string;
  provider: string;
  display_name: string;
  logo: string;
  forward_webhooks: boolean;
  integration_config: Record<string, string>;
  created_at: string;
  updated_at: string;
  webhook_url?: string;
  credentials?: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- Nango's is a union scripts narrow themselves
}

/** The context the host implements (the sandbox bridge, dryrun): what a script's `nango` is at run time. */
export interface ScriptContext<Metadata = Record<string, unknown>> {
  readonly connectionId: string;
  readonly providerConfigKey: string;
  /** The integration's provider, e.g. `avalara-sandbox` (Nango's `nango.provider`). */
  readonly provider?: string;
  get<T = unknown>(config: ProxyConfig): Promise<ScriptResponse<T>>;
  post<T = unknown>(config: ProxyConfig): Promise<ScriptResponse<T>>;
  put<T = unknown>(config: ProxyConfig): Promise<ScriptResponse<T>>;
  patch<T = unknown>(config: ProxyConfig): Promise<ScriptResponse<T>>;
  delete<T = unknown>(config: ProxyConfig): Promise<ScriptResponse<T>>;
  proxy<T = unknown>(config: ProxyConfig): Promise<ScriptResponse<T>>;
  paginate<T = unknown>(config: PaginateConfig): AsyncGenerator<T[], void, undefined>;
  getConnection(): Promise<ConnectionInfo>;
  /** The connection's current access token (OAuth 2), or its credentials for other auth modes. */
  getToken(): Promise<string | ScriptCredentials>;
  getMetadata<T = Metadata>(): Promise<T>;
  /** Replaces the connection's metadata. */
  setMetadata(metadata: Metadata | Record<string, unknown>): Promise<void>;
  /** Merges into the connection's metadata (top-level keys). */
  updateMetadata(metadata: Partial<Metadata> | Record<string, unknown>): Promise<void>;
  /** The environment's variables (`GET /environment-variables`); [] when none are set. */
  getEnvironmentVariables(): Promise<EnvironmentVariable[] | null>;
  /** The URL third-party webhooks for this integration are sent to. */
  getWebhookURL(): Promise<string | null | undefined>;
  /** Saves records into the cache (actions may save too, so a write shows in the cache at once). */
  batchSave<T extends { id: string | number }>(records: T[], model: string): Promise<boolean | null>;
  /** Merges partial records into the cached ones. */
  batchUpdate<T extends { id: string | number }>(records: T[], model: string): Promise<boolean | null>;
  batchDelete<T extends { id: string | number }>(records: T[], model: string): Promise<boolean | null>;
  log: ScriptLogger;
  logger: ScriptLoggerMethods;
  /** Validates an action's input; throws an ActionError (a 400 to the caller) naming the fields. */
  zodValidateInput<S extends z.ZodType>(args: { zodSchema: S; input: unknown }): Promise<{ success: true; data: z.output<S> }>;
  ActionError: typeof ActionError;
  /** The connection's integration; its credentials and webhook URL with `include`. */
  getIntegration(queries?: { include?: ('webhook' | 'credentials')[] }): Promise<IntegrationInfo>;
  /**
   * A request to any URL the outbound address policy allows, without the connection's credentials
   * (add your own headers); a URL the policy refuses is an ActionError `url_not_allowed`.
   */
  uncontrolledFetch(options: UncontrolledFetchOptions): Promise<FetchResponse>;
}

export interface SyncContext<Metadata, Checkpoint> extends ScriptContext<Metadata> {
  getCheckpoint(): Promise<Checkpoint | null>;
  saveCheckpoint(checkpoint: Checkpoint): Promise<void>;
  clearCheckpoint(): Promise<void>;
  /** The run is a full resync: records not saved in it are marked deleted at the end. */
  readonly isFullSync: boolean;
  /** The variant of the sync this run is for (`base`, or one created with POST /sync/{name}/variant/{variant}). */
  readonly variant: string;
  /** When the last successful run of this sync started (Nango's incremental syncs); undefined before the first. */
  readonly lastSyncDate?: Date;
  /**
   * Records of the model not saved (batchSave / batchUpdate) in this run are marked deleted when
   * the run finishes successfully. Once a run names a model here (or in trackDeletesStart), only
   * the models it names are swept.
   */
  deleteRecordsFromPreviousExecutions(model: string): Promise<void>;
  /** Starts tracking the model's records for deletion detection (call before saving them). */
  trackDeletesStart(model: string): Promise<void>;
  /** Records of the model not saved since trackDeletesStart are marked deleted when the run finishes successfully. */
  trackDeletesEnd(model: string): Promise<void>;
  /** One page of the model's records of this connection, as GET /records answers them (Nango's listRecords walks them); absent in a dry run. */
  listRecordsPage?(model: string, cursor: string | undefined): Promise<{ records: unknown[]; nextCursor: string | null }>;
}

/** What the runtime and the registry read of a definition (any schemas). */
export type AnyActionDefinition = CreateActionResponse<z.ZodTypeAny, z.ZodTypeAny, ZodMetadata, ZodCheckpoint>;
export type AnySyncDefinition = CreateSyncResponse<Record<string, ZodModel>, ZodMetadata, ZodCheckpoint>;
export type ActionDefinition = AnyActionDefinition;
export type ToolDefinition = CreateToolResponse<z.ZodTypeAny, z.ZodTypeAny, ZodMetadata, ZodCheckpoint>;
export type SyncDefinition = AnySyncDefinition;
export type OnEventDefinition = CreateOnEventResponse<ZodMetadata, ZodCheckpoint>;
export type ScriptDefinition = ActionDefinition | ToolDefinition | SyncDefinition;

/** Everything a script file may default-export (a Nango function may omit its endpoints). */
export type AnyScriptDefinition = ScriptDefinition | OnEventDefinition;

/** Nango's names for the `nango` object's types. */
export type NangoAction<TMetadata extends ZodMetadata = never, TCheckpoint extends ZodCheckpoint = never> = NangoActionBase<TMetadata, TCheckpoint>;
export type NangoSync<
  TModels extends Record<string, ZodModel> = never,
  TMetadata extends ZodMetadata = never,
  TCheckpoint extends ZodCheckpoint = never,
> = NangoSyncBase<TModels, TMetadata, TCheckpoint>;
