/**
 * @module sdk/types — the shapes scripts are written against: createAction, createSync, createTool
 * and createOnEvent definitions and the context every script receives (Switchyard's `ctx` and
 * Nango's `nango` are the same object). Types flow from the zod schemas. What Nango's function SDK
 * has and Switchyard does not is typed as {@link Unsupported}, so `tsc` (and `switchyard compile`)
 * refuses the call with a message naming it, before anything is deployed.
 */
import type { z } from 'zod';
import type { ActionError } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  method: HttpMethod;
  path: string;
  group?: string;
}

/**
 * A member of Nango's SDK that Switchyard does not provide (absent at run time). It is not callable, so a
 * call fails type-checking with "Type 'Unsupported<\"<name> is not supported by Switchyard …\">' has no call signatures".
 */
export interface Unsupported<Message extends string> {
  readonly __switchyard_unsupported: Message;
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
  /** Only JSON / text bodies are supported. */
  responseType?: 'json' | 'text';
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
  | { type: 'API_KEY'; apiKey: string }
  | { type: 'BASIC'; username: string; password: string }
  | { type: 'NONE' };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'http' | 'verbose' | 'silly';

/**
 * `log(message)`, `log(message, fields)` (Switchyard), `log(...values, { level })` (Nango):
 * every line lands in the run's logs.
 */
export interface ScriptLogger {
  (...args: unknown[]): void;
}

export interface ScriptLoggerMethods {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

export interface EnvironmentVariable {
  name: string;
  value: string;
}

/** Nango's SDK members Switchyard refuses at compile time, each with its reason. */
export interface UnsupportedMembers {
  getRecordsByIds?: Unsupported<'getRecordsByIds is not supported by Switchyard: keep what the script needs in the checkpoint or in metadata'>;
  triggerAction?: Unsupported<'triggerAction is not supported by Switchyard: call the provider directly, or trigger the action from your backend'>;
  startSync?: Unsupported<'startSync is not supported by Switchyard: start syncs from your backend (POST /sync/start)'>;
  setMergingStrategy?: Unsupported<'setMergingStrategy is not supported by Switchyard: batchSave replaces, batchUpdate merges'>;
  getFieldMapping?: Unsupported<'getFieldMapping is not supported by Switchyard (deprecated in Nango): use getMetadata'>;
  setFieldMapping?: Unsupported<'setFieldMapping is not supported by Switchyard (deprecated in Nango): use setMetadata'>;
  getIntegration?: Unsupported<"getIntegration is not supported by Switchyard: an integration's secrets are not given to scripts">;
  getFlowAttributes?: Unsupported<'getFlowAttributes is not supported by Switchyard'>;
  getObjectsFromModel?: Unsupported<'getObjectsFromModel is not supported by Switchyard'>;
  uncontrolledFetch?: Unsupported<'uncontrolledFetch is not supported by Switchyard: scripts reach the network through get/post/… only'>;
  tryAcquireLock?: Unsupported<'tryAcquireLock is not supported by Switchyard: a sync never runs twice at once for a connection'>;
  releaseLock?: Unsupported<'releaseLock is not supported by Switchyard'>;
  releaseAllLocks?: Unsupported<'releaseAllLocks is not supported by Switchyard'>;
  setRetryHeaders?: Unsupported<"setRetryHeaders is not supported by Switchyard: a provider's rate-limit headers are read from its definition">;
}

export interface ScriptContext<Metadata = Record<string, unknown>> extends UnsupportedMembers {
  readonly connectionId: string;
  readonly providerConfigKey: string;
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
}

export interface ActionDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, M extends z.ZodType = z.ZodType> {
  type: 'action';
  description: string;
  endpoint: Endpoint;
  input: I;
  output: O;
  metadata?: M;
  scopes?: string[];
  version?: string;
  exec(ctx: ScriptContext<z.infer<M>>, input: z.infer<I>): Promise<z.infer<O>>;
}

/** A tool is an action exposed to agents (MCP): an action with the agent-facing hints Nango's docs list. */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, M extends z.ZodType = z.ZodType> extends Omit<
  ActionDefinition<I, O, M>,
  'type'
> {
  type: 'action';
  tool: true;
  /** Shown to agents; defaults to the script's name. */
  title?: string;
  /** MCP tool annotations. */
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface SyncDefinition<
  Models extends Record<string, z.ZodType> = Record<string, z.ZodType>,
  M extends z.ZodType = z.ZodType,
  C extends z.ZodType = z.ZodType,
> {
  type: 'sync';
  description: string;
  frequency: string;
  autoStart?: boolean;
  /** 'full' runs detect deletions of records not seen; 'incremental' deletes only what the script reports. */
  syncType?: 'full' | 'incremental';
  /** Deprecated in Nango; Switchyard's full runs detect deletions anyway. */
  trackDeletes?: boolean;
  endpoints: Endpoint[];
  models: Models;
  metadata?: M;
  checkpoint?: C;
  scopes?: string[];
  version?: string;
  webhookSubscriptions?: string[];
  exec(ctx: SyncContext<z.infer<M>, z.infer<C>>): Promise<void>;
  onWebhook?(ctx: SyncContext<z.infer<M>, z.infer<C>>, payload: unknown): Promise<void>;
}

export type ScriptDefinition = ActionDefinition | ToolDefinition | SyncDefinition;

export type ConnectionEvent = 'post-connection-creation' | 'pre-connection-deletion' | 'validate-connection';

export interface OnEventDefinition<M extends z.ZodType = z.ZodType> {
  type: 'on-event';
  description?: string;
  event: ConnectionEvent;
  metadata?: M;
  version?: string;
  exec(ctx: ScriptContext<z.infer<M>>): Promise<void>;
}

/** Everything a script file may default-export. */
export type AnyScriptDefinition = ScriptDefinition | OnEventDefinition;

/** Nango's names for the context types (`NangoSync`, `NangoAction`). */
export type NangoAction<Metadata = Record<string, unknown>> = ScriptContext<Metadata>;
export type NangoSync<Metadata = Record<string, unknown>, Checkpoint = unknown> = SyncContext<Metadata, Checkpoint>;
/** Nango's name for a request config (with `paginate` for `nango.paginate`). */
export type ProxyConfiguration = PaginateConfig;
