/**
 * @module sdk/nango — the `nango` object and the create* definitions as Nango's function SDK
 * (`@nangohq/runner-sdk` 0.71) types them, written here so a Nango project type-checks unchanged:
 * response `data` is `any`, `paginate` yields `T[]` pages of `any`, `endpoint(s)` are optional,
 * records are keyed by the sync's model names. test/types/nango-differential.ts compares every
 * member with the real package's, both ways; the members listed there as differences are the ones
 * Switchyard does not provide, typed {@link Unsupported} so a call names them at compile time.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- Nango types responses, pages and payloads as `any`; matching it is the point */
import type * as z from 'zod';
import type { ActionError } from './errors.js';

export type MaybePromise<T> = Promise<T> | T;

export type HTTP_METHOD = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'PROPFIND' | 'REPORT';

/** An action's or a sync's endpoint (deprecated in Nango 0.71: functions are called by name). */
export interface NangoSyncEndpointV2 {
  method: HTTP_METHOD;
  path: string;
  group?: string | null | undefined;
}

/**
 * A member of Nango's SDK that Switchyard does not provide (absent at run time). It is not callable, so a
 * call fails type-checking with "Type 'Unsupported<\"<name> is not supported by Switchyard …\">' has no call signatures".
 */
export interface Unsupported<Message extends string> {
  readonly __switchyard_unsupported: Message;
}

export type ZodMetadata = z.ZodObject | z.ZodVoid | undefined;
export type ZodCheckpoint = z.ZodObject<Record<string, z.ZodString | z.ZodNumber | z.ZodBoolean>> | undefined;
export type ZodModel = z.ZodObject<{ id: z.ZodString }>;
export interface RawModel {
  [key: string]: unknown;
  id: string;
}

// ---- requests ----------------------------------------------------------------------------------

export type ResponseType = 'arraybuffer' | 'blob' | 'document' | 'json' | 'text' | 'stream';

export interface RetryHeaderConfig {
  at?: string[] | string;
  after?: string[] | string;
  remaining?: string;
  error_code?: string[];
  in_body?: { path: string; value?: string; strategy: 'at' | 'after' };
}

/** A provider's answer as the SDK's get/post/… give it (Nango's axios response, `data` untyped). */
export interface NangoResponse<T = any> {
  data: T;
  status: number;
  statusText: string;
  /** Plain object of the response headers (lower-case names), values as loosely typed as Nango's. */
  headers: Record<string, any>;
}

export interface PaginationBase {
  limit?: number | string;
  response_path?: string;
  limit_name_in_request: string;
  in_body?: boolean;
  on_page?: (paginationState: { nextPageParam?: string | number | undefined; response: NangoResponse }) => Promise<void>;
}
export interface CursorPagination extends PaginationBase {
  type: 'cursor';
  cursor_path_in_response: string;
  cursor_name_in_request: string;
}
export interface LinkPagination extends PaginationBase {
  type: 'link';
  link_rel_in_response_header?: string;
  link_path_in_response_body?: string;
}
export interface OffsetPagination extends PaginationBase {
  type: 'offset';
  offset_name_in_request: string;
  offset_start_value?: number;
  offset_calculation_method?: 'per-page' | 'by-response-size';
}
export type Pagination = CursorPagination | LinkPagination | OffsetPagination;

/** A request of get/post/…/proxy/paginate, Nango's shape. */
export interface ProxyConfiguration {
  endpoint: string;
  providerConfigKey?: string;
  connectionId?: string;
  retries?: number;
  data?: unknown;
  headers?: Record<string, string>;
  params?: string | Record<string, string | number | string[] | number[]>;
  baseUrlOverride?: string | undefined;
  responseType?: ResponseType | undefined;
  retryHeader?: RetryHeaderConfig;
  retryOn?: number[] | null;
  forwardHeadersOnRedirect?: boolean;
  decompress?: boolean | string;
  method?: HTTP_METHOD | Lowercase<HTTP_METHOD>;
  paginate?: Partial<CursorPagination> | Partial<LinkPagination> | Partial<OffsetPagination>;
}

/** uncontrolledFetch's request: a plain fetch outside the provider's proxy, without credentials. */
export interface UncontrolledFetchOptions {
  url: URL;
  method?: HTTP_METHOD;
  headers?: Record<string, string> | undefined;
  body?: string | null;
}

// ---- connections and integrations ---------------------------------------------------------------

export interface OAuth1Token {
  oAuthToken: string;
  oAuthTokenSecret: string;
}

interface ConfigOverride {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}
interface OAuth2Creds {
  type: 'OAUTH2';
  raw: Record<string, any>;
  access_token: string;
  refresh_token?: string | undefined;
  expires_at?: string | undefined;
  config_override?: ConfigOverride | undefined;
}
interface AppCreds {
  type: 'APP';
  access_token: string;
  expires_at?: string | undefined;
  raw: Record<string, any>;
  jwtToken?: string;
}

/** A connection's credentials as Nango's API gives them (dates as ISO strings), by auth mode. */
export type ApiPublicAllAuthCredentials =
  | { type: 'OAUTH1'; raw: Record<string, any>; oauth_token: string; oauth_token_secret: string }
  | OAuth2Creds
  | {
      type: 'OAUTH2_CC';
      raw: Record<string, any>;
      token: string;
      expires_at?: string | undefined;
      client_id: string;
      client_secret: string;
      client_certificate?: string | undefined;
      client_private_key?: string | undefined;
    }
  | { type: 'BASIC'; username: string; password: string }
  | { type: 'API_KEY'; apiKey: string }
  | AppCreds
  | Record<string, never>
  | { type: 'CUSTOM'; raw: Record<string, any> }
  | { type: 'TBA'; token_id: string; token_secret: string; config_override?: ConfigOverride | undefined }
  | { [key: string]: any; type: 'JWT'; token?: string; expires_at?: string | undefined }
  | {
      type: 'BILL';
      raw: Record<string, any>;
      username: string;
      password: string;
      organization_id: string;
      dev_key: string;
      session_id?: string;
      user_id?: string;
      expires_at?: string | undefined;
    }
  | { [key: string]: any; type: 'TWO_STEP'; raw: Record<string, any>; token?: string; refresh_token?: string; expires_at?: string | undefined }
  | { type: 'CUSTOM'; raw: Record<string, any>; app: AppCreds; user: OAuth2Creds | null }
  | { type: 'SIGNATURE'; username: string; password: string; token?: string; expires_at?: string | undefined }
  | { [key: string]: any; type: 'BASIC' }
  | {
      type: 'AWS_SIGV4';
      raw: Record<string, any>;
      role_arn: string;
      region: string;
      service: string;
      access_key_id: string;
      secret_access_key: string;
      session_token: string;
      expires_at?: string | undefined;
      external_id?: string | undefined;
    };

export interface ConnectionConfig {
  [key: string]: any;
  oauth_scopes_override?: string[] | undefined;
  oauth_scopes?: string | undefined;
  authorization_params?: Record<string, string> | undefined;
}

/** `getConnection()`: the connection as Nango's `GET /connection/:id` answers it. */
export interface ApiPublicConnectionFull {
  id: number;
  connection_id: string;
  connection_config: ConnectionConfig;
  webhook_url_override: string | null;
  provider_config_key: string;
  created_at: string;
  updated_at: string;
  last_fetched_at: string | null;
  metadata: Record<string, unknown> | null;
  provider: string;
  errors: { type: string; log_id: string }[];
  end_user: {
    id: string;
    display_name: string | null;
    email: string | null;
    tags: Record<string, string> | null;
    organization: { id: string; display_name: string | null } | null;
  } | null;
  tags: Record<string, string>;
  credentials: ApiPublicAllAuthCredentials;
}

/** Switchyard's names for the same values (scripts written for Switchyard use them). */
export interface SwitchyardConnectionNames {
  connectionId: string;
  providerConfigKey: string;
  connectionConfig: Record<string, unknown>;
}

/** `getIntegration()`: the integration as Nango's `GET /integrations/:key` answers it. */
export interface ApiPublicIntegration {
  unique_key: string;
  provider: string;
  display_name: string | null;
  forward_webhooks: boolean;
  created_at: string;
  updated_at: string;
  logo: string;
  webhook_url?: string | null;
  credentials_label?: Record<string, string> | undefined;
  preconfigured_credentials?: string[] | undefined;
  preconfigured_connection_config?: string[] | undefined;
  credentials?:
    | { type: 'OAUTH2' | 'OAUTH1' | 'TBA'; client_id: string | null; client_secret: string | null; scopes: string | null; webhook_secret: string | null }
    | { type: 'APP'; app_id: string | null; private_key: string | null; app_link: string | null }
    | { type: 'CUSTOM'; client_id: string | null; client_secret: string | null; app_id: string | null; app_link: string | null; private_key: string | null }
    | null;
}

export interface MetadataBody {
  connection_id: string | string[];
  provider_config_key: string;
  metadata: Record<string, unknown>;
}

export interface EnvironmentVariable {
  name: string;
  value: string;
}

export interface UserLogParameters {
  level?: 'info' | 'debug' | 'error' | 'warn' | 'http' | 'verbose' | 'silly';
}

/** Switchyard's `nango.logger`: log lines at a level (Nango's `logger` is a level setting instead). */
export interface ScriptLoggerMethods {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

// ---- the nango object --------------------------------------------------------------------------

type Inferred<T> = T extends never ? never : z.infer<Exclude<T, undefined>>;

/** Members of Nango's SDK Switchyard refuses at compile time, each with its reason. */
export interface UnsupportedActionMembers {
  triggerAction?: Unsupported<'triggerAction is not supported by Switchyard: call the provider directly, or trigger the action from your backend'>;
  triggerSync?: Unsupported<'triggerSync is not supported by Switchyard: trigger syncs from your backend (POST /sync/trigger)'>;
  startSync?: Unsupported<'startSync is not supported by Switchyard: start syncs from your backend (POST /sync/start)'>;
  getFieldMapping?: Unsupported<'getFieldMapping is not supported by Switchyard (deprecated in Nango): use getMetadata'>;
  setFieldMapping?: Unsupported<'setFieldMapping is not supported by Switchyard (deprecated in Nango): use setMetadata'>;
  getFlowAttributes?: Unsupported<'getFlowAttributes is not supported by Switchyard'>;
  getVariant?: Unsupported<'getVariant is not supported by Switchyard: functions have no variants'>;
  setLogger?: Unsupported<'setLogger is not supported by Switchyard: every log line is kept; pass { level } to log()'>;
  tryAcquireLock?: Unsupported<'tryAcquireLock is not supported by Switchyard: a sync never runs twice at once for a connection'>;
  releaseLock?: Unsupported<'releaseLock is not supported by Switchyard'>;
  releaseAllLocks?: Unsupported<'releaseAllLocks is not supported by Switchyard'>;
  setRetryHeaders?: Unsupported<"setRetryHeaders is not supported by Switchyard: a provider's rate-limit headers are read from its definition">;
  getObjectsFromModel?: Unsupported<'getObjectsFromModel is not supported by Switchyard'>;
}

export interface UnsupportedSyncMembers {
  getRecordsByIds?: Unsupported<'getRecordsByIds is not supported by Switchyard: keep what the script needs in the checkpoint or in metadata'>;
  setMergingStrategy?: Unsupported<'setMergingStrategy is not supported by Switchyard: batchSave replaces, batchUpdate merges'>;
  batchSend?: Unsupported<'batchSend is not supported by Switchyard (deprecated in Nango): use batchSave'>;
}

/** The `nango` object of an action or an on-event function (Nango's `NangoAction`). */
export interface NangoActionBase<
  TMetadata extends ZodMetadata = never,
  TCheckpoint extends ZodCheckpoint = never,
  TMetadataInferred = Inferred<TMetadata>,
  TCheckpointInferred = Inferred<TCheckpoint>,
> extends UnsupportedActionMembers {
  connectionId: string;
  providerConfigKey: string;
  /** The integration's provider, e.g. `avalara-sandbox`. */
  provider?: string;
  ActionError: typeof ActionError;
  logger: ScriptLoggerMethods;
  proxy<T = any>(config: ProxyConfiguration): Promise<NangoResponse<T>>;
  get<T = any>(config: Omit<ProxyConfiguration, 'method'>): Promise<NangoResponse<T>>;
  post<T = any>(config: Omit<ProxyConfiguration, 'method'>): Promise<NangoResponse<T>>;
  put<T = any>(config: Omit<ProxyConfiguration, 'method'>): Promise<NangoResponse<T>>;
  patch<T = any>(config: Omit<ProxyConfiguration, 'method'>): Promise<NangoResponse<T>>;
  delete<T = any>(config: Omit<ProxyConfiguration, 'method'>): Promise<NangoResponse<T>>;
  paginate<T = any>(config: ProxyConfiguration): AsyncGenerator<T[], undefined, void>;
  /** A plain fetch outside the provider's proxy: no credentials, through the platform's address policy. Its `Response` is the sandbox's (sdk/globals/sandbox). */
  uncontrolledFetch(options: UncontrolledFetchOptions): Promise<Response>;
  getToken(): Promise<string | OAuth1Token | ApiPublicAllAuthCredentials>;
  /** The script's own connection: overrides of the key or id are refused. */
  getConnection(): Promise<ApiPublicConnectionFull & SwitchyardConnectionNames>;
  getIntegration(queries?: { include?: ('webhook' | 'credentials')[] | undefined }): Promise<ApiPublicIntegration>;
  getMetadata<T = TMetadataInferred>(): Promise<T>;
  setMetadata(metadata: TMetadataInferred): Promise<NangoResponse<MetadataBody>>;
  updateMetadata(metadata: Partial<TMetadataInferred>): Promise<NangoResponse<MetadataBody>>;
  getWebhookURL(): Promise<string | null | undefined>;
  getEnvironmentVariables(): Promise<EnvironmentVariable[] | null>;
  log(message: any, options?: UserLogParameters | { [key: string]: any; level?: never }): MaybePromise<void>;
  log(message: string, ...args: [any, UserLogParameters]): MaybePromise<void>;
  log(...args: [...any]): MaybePromise<void>;
  zodValidateInput<T = any, Z = any>({ zodSchema, input }: { zodSchema: z.ZodType<Z>; input: T }): Promise<z.ZodSafeParseSuccess<Z>>;
  getCheckpoint(): Promise<TCheckpointInferred | null>;
  saveCheckpoint(checkpoint: TCheckpointInferred): Promise<void>;
  clearCheckpoint(): Promise<void>;
  /** Switchyard: an action may save records too, so a write shows in the cache at once. */
  batchSave<T extends RawModel>(records: T[], model: string): MaybePromise<boolean>;
  batchUpdate<T extends RawModel>(records: T[], model: string): MaybePromise<boolean>;
  batchDelete<T extends RawModel>(records: T[], model: string): MaybePromise<boolean>;
}

/** The `nango` object of a sync (Nango's `NangoSync`): records by the sync's model names. */
export interface NangoSyncBase<
  TModels extends Record<string, ZodModel> = never,
  TMetadata extends ZodMetadata = never,
  TCheckpoint extends ZodCheckpoint = never,
  TModelName extends keyof TModels = keyof TModels,
>
  extends Omit<NangoActionBase<TMetadata, TCheckpoint>, 'batchSave' | 'batchUpdate' | 'batchDelete'>, UnsupportedSyncMembers {
  lastSyncDate?: Date;
  /** Switchyard: the run is a full resync (records not saved in it are marked deleted at the end). */
  readonly isFullSync: boolean;
  batchSave<TModel extends RawModel = z.infer<TModels[TModelName]>>(results: TModel[], model: TModelName): MaybePromise<boolean>;
  batchDelete<TModel extends RawModel = z.infer<TModels[TModelName]>>(
    results: (Pick<TModel, 'id'> & Partial<TModel>)[],
    model: TModelName,
  ): MaybePromise<boolean>;
  batchUpdate<TModel extends RawModel = z.infer<TModels[TModelName]>>(
    results: (Pick<TModel, 'id'> & Partial<TModel>)[],
    model: TModelName,
  ): MaybePromise<boolean>;
  deleteRecordsFromPreviousExecutions(model: TModelName): MaybePromise<{ deletedKeys: string[] }>;
  trackDeletesStart(model: TModelName): MaybePromise<void>;
  trackDeletesEnd(model: TModelName): MaybePromise<{ deletedKeys: string[] }>;
  /** The model's records of this connection as GET /records has them (with `_nango_metadata`), from `cursor` on. */
  listRecords<TModel extends RawModel = z.infer<TModels[TModelName]>>(model: TModelName, options?: { cursor?: string }): AsyncGenerator<TModel>;
}

// ---- definitions -------------------------------------------------------------------------------

export interface CreateSyncProps<TModels extends Record<string, ZodModel>, TMetadata extends ZodMetadata = never, TCheckpoint extends ZodCheckpoint = never> {
  version?: string;
  description: string;
  /** Deprecated in Nango 0.71: records are read by model. */
  endpoints?: NangoSyncEndpointV2[];
  frequency: string;
  models: TModels;
  syncType?: 'full' | 'incremental';
  /** Deprecated in Nango; Switchyard's full runs detect deletions anyway. */
  trackDeletes?: boolean;
  autoStart?: boolean;
  scopes?: string[];
  metadata?: TMetadata;
  checkpoint?: TCheckpoint;
  webhookSubscriptions?: string[];
  exec(nango: NangoSyncBase<TModels, TMetadata, TCheckpoint>): MaybePromise<void>;
  onWebhook?(nango: NangoSyncBase<TModels, TMetadata, TCheckpoint>, payload: any): MaybePromise<void>;
}
export interface CreateSyncResponse<
  TModels extends Record<string, ZodModel>,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
> extends CreateSyncProps<TModels, TMetadata, TCheckpoint> {
  type: 'sync';
}

export interface CreateActionProps<
  TInput extends z.ZodTypeAny,
  TOutput extends z.ZodTypeAny,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
> {
  version?: string;
  description: string;
  /** Deprecated in Nango 0.71: actions are triggered by name (POST /action/trigger). */
  endpoint?: NangoSyncEndpointV2;
  input: TInput;
  output: TOutput;
  metadata?: TMetadata;
  checkpoint?: TCheckpoint;
  scopes?: string[];
  exec(nango: NangoActionBase<TMetadata, TCheckpoint>, input: z.infer<TInput>): MaybePromise<z.infer<TOutput>>;
}
export interface CreateActionResponse<
  TInput extends z.ZodTypeAny,
  TOutput extends z.ZodTypeAny,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
> extends CreateActionProps<TInput, TOutput, TMetadata, TCheckpoint> {
  type: 'action';
}

export type ConnectionEvent = 'post-connection-creation' | 'pre-connection-deletion' | 'validate-connection';

export interface CreateOnEventProps<TMetadata extends ZodMetadata = undefined, TCheckpoint extends ZodCheckpoint = undefined> {
  version?: string;
  description: string;
  event: ConnectionEvent;
  metadata?: TMetadata;
  checkpoint?: TCheckpoint;
  exec(nango: NangoActionBase<TMetadata, TCheckpoint>): MaybePromise<void>;
}
export interface CreateOnEventResponse<TMetadata extends ZodMetadata = undefined, TCheckpoint extends ZodCheckpoint = undefined> extends CreateOnEventProps<
  TMetadata,
  TCheckpoint
> {
  type: 'on-event';
}

/** MCP tool annotations, hints for agents. */
export type ToolAnnotations = {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** createTool (Switchyard): an action exposed to agents, with the agent-facing hints. */
export interface CreateToolProps<
  TInput extends z.ZodTypeAny,
  TOutput extends z.ZodTypeAny,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
> extends CreateActionProps<TInput, TOutput, TMetadata, TCheckpoint> {
  /** Shown to agents; defaults to the script's name. */
  title?: string;
  annotations?: ToolAnnotations;
}
export interface CreateToolResponse<
  TInput extends z.ZodTypeAny,
  TOutput extends z.ZodTypeAny,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
> extends CreateToolProps<TInput, TOutput, TMetadata, TCheckpoint> {
  type: 'action';
  tool: true;
}
