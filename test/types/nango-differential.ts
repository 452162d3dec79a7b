/**
 * Type-level differential test: Switchyard's SDK (what `nango` resolves to in `switchyard compile`)
 * against the real `nango` package's types (devDependency nango@0.71.10, its @nangohq/runner-sdk).
 * Every public definition and every member of the `nango` object must be assignable both ways, so
 * any drift fails `npm run typecheck` (this folder is its own tsconfig project: see tsconfig.json).
 * Where Switchyard differs on purpose, the member is listed below with the reason.
 */
import type * as z from 'zod';
import type * as Theirs from 'nango';
import type * as Ours from '../../sdk/index.js';

type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile unless the union of failing member names is empty: the error names them. */
type NoneFailing<T extends never> = T;
type Failing<O, T, K extends keyof O & keyof T> = { [P in K]: Mutual<O[P], T[P]> extends true ? never : P }[K];

type Item = z.ZodObject<{ id: z.ZodString; name: z.ZodString }>;
type Models = { Item: Item };
type Meta = z.ZodObject<{ team: z.ZodString }>;
type Ckpt = z.ZodObject<{ cursor: z.ZodString }>;
type In = z.ZodObject<{ q: z.ZodString }>;
type Out = z.ZodObject<{ n: z.ZodNumber }>;

type OurAction = Ours.NangoAction<Meta, Ckpt>;
type TheirAction = Theirs.NangoAction<Meta, Ckpt>;
type OurSync = Ours.NangoSync<Models, Meta, Ckpt>;
type TheirSync = Theirs.NangoSync<Models, Meta, Ckpt>;

/** The runner's own state on Nango's object, not given to scripts by Switchyard (absent: a use names it). */
type RunnerInternals =
  | 'nango'
  | 'activityLogId'
  | 'syncId'
  | 'nangoConnectionId'
  | 'environmentId'
  | 'environmentName'
  | 'syncJobId'
  | 'abortSignal'
  | 'syncConfig'
  | 'runnerFlags'
  | 'scriptType'
  | 'lifecycle'
  | 'isCLI'
  | 'accountId'
  | 'integrationConfig'
  | 'telemetryBag'
  | 'variant'
  | 'track_deletes'
  | 'emptyCache'
  | 'modelFullName';
/** Typed Unsupported<"<name> is not supported by Switchyard: …">: a call fails at compile time naming the member. */
type Unsupported =
  | 'triggerAction'
  | 'triggerSync'
  | 'startSync'
  | 'getFieldMapping'
  | 'setFieldMapping'
  | 'getFlowAttributes'
  | 'getVariant'
  | 'setLogger'
  | 'tryAcquireLock'
  | 'releaseLock'
  | 'releaseAllLocks'
  | 'getRecordsByIds'
  | 'setMergingStrategy'
  | 'batchSend';
/** Compared below with their differences set aside. */
type ComparedApart =
  // The response is a plain object: no axios `config`/`request`, headers a plain record (no AxiosHeaders methods).
  | 'proxy'
  | 'get'
  | 'post'
  | 'put'
  | 'patch'
  | 'delete'
  | 'paginate'
  // Switchyard adds its camelCase names; a script reaches its own connection only (no key/id overrides).
  | 'getConnection'
  // The metadata writes answer Nango's response shape (compared apart for the same reason as get).
  | 'setMetadata'
  | 'updateMetadata'
  // Switchyard's logger has debug/info/warn/error methods; Nango's `logger` is a `{ level }` setting.
  | 'logger';
type Apart = RunnerInternals | Unsupported | ComparedApart;

export type ActionMembers = NoneFailing<Failing<OurAction, TheirAction, Exclude<keyof TheirAction, Apart>>>;
export type SyncMembers = NoneFailing<Failing<OurSync, TheirSync, Exclude<keyof TheirSync, Apart>>>;
// Every member Nango has is either compared, or listed above (a new member in Nango fails here).
export type AllListed = NoneFailing<Exclude<keyof TheirSync, keyof OurSync | RunnerInternals>>;

// Requests: Nango's config minus its host-side URL validators (the platform's address policy), and pages minus on_page's axios response.
type DOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Config<C> = Omit<C, 'validateProxyRequestUrl' | 'validateProxyRedirectUrl' | 'paginate'> & {
  paginate?: DOmit<NonNullable<C extends { paginate?: infer P } ? P : never>, 'on_page'>;
};
type Response<R> = Awaited<R> extends infer A ? { [K in 'data' | 'status' | 'statusText']: K extends keyof A ? A[K] : 'missing' } : never;
type Requests = 'proxy' | 'get' | 'post' | 'put' | 'patch' | 'delete';
export type RequestConfigs = NoneFailing<
  { [M in Requests]: Mutual<Config<Parameters<OurAction[M]>[0]>, Config<Parameters<TheirAction[M]>[0]>> extends true ? never : M }[Requests]
>;
export type Responses = NoneFailing<
  { [M in Requests]: Mutual<Response<ReturnType<OurAction[M]>>, Response<ReturnType<TheirAction[M]>>> extends true ? never : M }[Requests]
>;
export type Paginate = NoneFailing<Mutual<ReturnType<OurAction['paginate']>, ReturnType<TheirAction['paginate']>> extends true ? never : 'paginate'>;
export type PaginateConfig = NoneFailing<
  Mutual<Config<Parameters<OurAction['paginate']>[0]>, Config<Parameters<TheirAction['paginate']>[0]>> extends true ? never : 'paginate'
>;
export type UncontrolledFetch = NoneFailing<
  Mutual<Parameters<OurAction['uncontrolledFetch']>, Parameters<TheirAction['uncontrolledFetch']>> extends true ? never : 'uncontrolledFetch'
>;
type TheirConnection = Awaited<ReturnType<TheirAction['getConnection']>>;
export type Connection = NoneFailing<
  Mutual<Pick<Awaited<ReturnType<OurAction['getConnection']>>, keyof TheirConnection>, TheirConnection> extends true ? never : 'getConnection'
>;
type Writes = 'setMetadata' | 'updateMetadata';
export type MetadataWrites = NoneFailing<
  {
    [M in Writes]: Mutual<Parameters<OurAction[M]>, Parameters<TheirAction[M]>> extends true
      ? Mutual<Response<ReturnType<OurAction[M]>>, Response<ReturnType<TheirAction[M]>>> extends true
        ? never
        : M
      : M;
  }[Writes]
>;

// Definitions: createSync / createAction / createOnEvent parameters (exec compared through its
// `nango` argument above, its input and result here). createTool is Switchyard's: an action's props plus hints.
type Props<P> = Omit<P, 'exec' | 'onWebhook'>;
type ActionProps = [Ours.CreateActionProps<In, Out, Meta, Ckpt>, Theirs.CreateActionProps<In, Out, Meta, Ckpt>];
type SyncProps = [Ours.CreateSyncProps<Models, Meta, Ckpt>, Theirs.CreateSyncProps<Models, Meta, Ckpt>];
type EventProps = [Ours.CreateOnEventProps<Meta, Ckpt>, Theirs.CreateOnEventProps<Meta, Ckpt>];
export type Definitions = NoneFailing<
  | (Mutual<Props<ActionProps[0]>, Props<ActionProps[1]>> extends true ? never : 'CreateActionProps')
  | (Mutual<Props<SyncProps[0]>, Props<SyncProps[1]>> extends true ? never : 'CreateSyncProps')
  | (Mutual<Props<EventProps[0]>, Props<EventProps[1]>> extends true ? never : 'CreateOnEventProps')
  | (Mutual<Parameters<ActionProps[0]['exec']>[1], Parameters<ActionProps[1]['exec']>[1]> extends true ? never : 'action exec input')
  | (Mutual<ReturnType<ActionProps[0]['exec']>, ReturnType<ActionProps[1]['exec']>> extends true ? never : 'action exec result')
  | (Mutual<ReturnType<SyncProps[0]['exec']>, ReturnType<SyncProps[1]['exec']>> extends true ? never : 'sync exec result')
  | (Mutual<Props<Ours.CreateToolProps<In, Out, Meta, Ckpt>>, Props<ActionProps[1]> & Pick<Ours.CreateToolProps<In, Out>, 'title' | 'annotations'>> extends true
      ? never
      : 'CreateToolProps')
  // The response's `type` of an on-event definition is Switchyard's build tag ('on-event'; Nango: 'onEvent').
  | (Mutual<Omit<Ours.CreateOnEventResponse<Meta, Ckpt>, 'exec' | 'type'>, Omit<Theirs.CreateOnEventResponse<Meta, Ckpt>, 'exec' | 'type'>> extends true
      ? never
      : 'CreateOnEventResponse')
  | (Mutual<Props<Ours.CreateSyncResponse<Models, Meta, Ckpt>>, Props<Theirs.CreateSyncResponse<Models, Meta, Ckpt>>> extends true
      ? never
      : 'CreateSyncResponse')
  | (Mutual<Props<Ours.CreateActionResponse<In, Out, Meta, Ckpt>>, Props<Theirs.CreateActionResponse<In, Out, Meta, Ckpt>>> extends true
      ? never
      : 'CreateActionResponse')
  | (Mutual<Ours.ProxyConfiguration, Config<Theirs.ProxyConfiguration>> extends true ? never : 'ProxyConfiguration')
>;

// ActionError: `new nango.ActionError(payload?)`, with `type` and `payload` as Nango's.
export type ActionErrorClass = NoneFailing<Mutual<InstanceType<typeof Ours.ActionError>, Theirs.ActionError> extends true ? never : 'ActionError'>;
