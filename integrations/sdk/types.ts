/**
 * @module sdk/types — the shapes scripts are written against: createAction and createSync
 * definitions and the context every script receives. Types flow from the zod schemas.
 */
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  method: HttpMethod;
  path: string;
  group?: string;
}

export interface ProxyConfig {
  endpoint: string;
  method?: HttpMethod;
  params?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  data?: unknown;
  /** Attempts after the first on 429 / 5xx / network errors, inside this call. */
  retries?: number;
  baseUrlOverride?: string;
}

export interface ScriptResponse<T = unknown> {
  status: number;
  data: T;
  headers: Record<string, string | string[]>;
}

export type PaginateConfig = ProxyConfig & {
  paginate?: {
    type?: 'cursor' | 'link' | 'offset';
    /** Path in the response of the array of items (dotted). */
    response_path?: string;
    limit?: number;
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
  };
};

export interface ConnectionInfo {
  connectionId: string;
  providerConfigKey: string;
  provider: string;
  connectionConfig: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
}

export interface ScriptLogger {
  (message: string, fields?: Record<string, unknown>): void;
}

export interface ScriptContext<Metadata = Record<string, unknown>> {
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
  getMetadata(): Promise<Metadata>;
  setMetadata(metadata: Record<string, unknown>): Promise<void>;
  /** Saves records into the cache (actions may save too, so a write shows in the cache at once). */
  batchSave(records: { id: string }[], model: string): Promise<void>;
  batchUpdate(records: { id: string }[], model: string): Promise<void>;
  batchDelete(records: { id: string }[], model: string): Promise<void>;
  log: ScriptLogger;
}

export interface SyncContext<Metadata, Checkpoint> extends ScriptContext<Metadata> {
  getCheckpoint(): Promise<Checkpoint | null>;
  saveCheckpoint(checkpoint: Checkpoint): Promise<void>;
  /** The run is a full resync: records not saved in it are marked deleted at the end. */
  readonly isFullSync: boolean;
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

export type ScriptDefinition = ActionDefinition | SyncDefinition;

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
