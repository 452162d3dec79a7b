/**
 * @module workflows/contracts — the contract between Switchyard and its Temporal workflows, in one
 * pure module: workflow names and their input/result types, workflow and schedule ids, signals,
 * the task queue, and the search attributes. No I/O and no Node built-ins: the workflows (bundled
 * and replayed by the worker), the activities, the API and the features all import it.
 *
 * Every start goes through `startWorkflow` / `executeWorkflow` / `scheduleAction` below, whose
 * `args` are checked by tsc against the workflow's input (test/workflow-contracts.types.ts also
 * checks that each workflow in workflows/index.ts implements its entry of `WorkflowContracts`).
 * The client is passed in and imported as a type only, so the workflow bundle never loads it.
 *
 * Names and ids are persisted (histories, schedules, runs in flight): changing one orphans what
 * Temporal already holds. Recorded histories (test/histories) replay against the same names.
 */
import type {
  Client,
  ScheduleOptionsStartWorkflowAction,
  WorkflowHandle,
  WithWorkflowArgs,
  WorkflowHandleWithSignaledRunId,
  WorkflowHandleWithStartDetails,
  WorkflowResultType,
  WorkflowSignalWithStartOptions,
  WorkflowStartOptions,
} from '@temporalio/client';
import { defineSignal } from '@temporalio/workflow';
import type { PluginWorkflowContracts } from '../integrations/workflow-contracts.js';
import { pluginWorkflowNames } from '../integrations/workflow-contracts.js';

// The search attribute keys stay in lib/temporal (infrastructure registers them on the server and
// reads them into spans, and lib/ never imports workflows/); they are pure, so this re-export keeps
// the contract in one place without a second definition.
export { SA, searchAttributesFor, searchAttributeNames, type RunLabels } from '../lib/temporal/search-attributes.js';

// ---------------------------------------------------------------------------------------------
// Task queue

/** One task queue per environment: `{SWITCHYARD_TASK_QUEUE_PREFIX}-{environment}`. */
export function taskQueueFor(prefix: string, environment: string): string {
  return `${prefix}-${environment}`;
}

// ---------------------------------------------------------------------------------------------
// Inputs and results

export interface DiagnosticsInput {
  echo: string | null;
}

export interface DiagnosticsResult {
  workflowId: string;
  taskQueue: string;
  databaseTime: string;
  worker: string;
  echo: string | null;
}

export interface ConnectionCheckInput {
  connectionPk: number;
}

export interface ConnectionCheckResult {
  ok: boolean;
  reason?: string;
}

export interface ActionWorkflowInput {
  runId: string;
  isAsync: boolean;
}

export interface ActionWorkflowResult {
  ok: boolean;
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** First retry delay; doubles up to 1 h. Default 2 s. */
  initialIntervalMs?: number;
  /** How long to keep retrying before the delivery is dead (SWITCHYARD_WEBHOOK_RETRY_HOURS). Default 24. */
  retryHours?: number;
}

export interface WebhookDeliveryResult {
  status: 'delivered' | 'dead' | 'skipped';
  reason?: string;
}

/** One endpoint (environment + target URL) whose deliveries webhookEndpointWorkflow sends in batches. */
export interface WebhookEndpointInput {
  environmentId: number;
  /** A hash of the URL (features/webhooks/outbox.ts endpointKey): the URL itself may carry a secret. */
  endpointKey: string;
  /** First retry delay; doubles up to 1 h. Default 2 s. */
  initialIntervalMs?: number;
  /** How long to keep retrying a delivery before it is dead. Default 24. */
  retryHours?: number;
}

export interface WebhookEndpointResult {
  /** Ended idle: nothing pending for a while. The next emit starts it again. */
  idle: boolean;
}

/** Wakes an endpoint's workflow: deliveries of it are due. No payload: the workflow reads its outbox. */
export const webhookEndpointWakeSignal = defineSignal('wake');

export interface SyncWorkflowInput {
  connectionPk: number;
  syncName: string;
  reset?: boolean;
  emptyCache?: boolean;
}

export interface SyncWorkflowResult {
  status: 'SUCCESS' | 'ERROR' | 'SKIPPED';
  reason?: string;
}

export interface OnEventWorkflowInput {
  connectionPk: number;
  event: 'post-connection-creation';
}

export interface OnEventWorkflowResult {
  ok: boolean;
  scripts?: string[];
  error?: string;
}

export interface SyncWebhookWorkflowInput {
  connectionPk: number;
  syncName: string;
  /** The third party's event type that matched the sync's webhookSubscriptions. */
  type: string;
  payload: unknown;
}

export interface SyncWebhookWorkflowResult {
  results: Record<string, { added: number; updated: number; deleted: number }>;
}

// ---------------------------------------------------------------------------------------------
// Workflow names → signatures

/**
 * Every workflow the worker runs, by its Temporal workflow type name (the exported function's
 * name in workflows/index.ts).
 */
export interface WorkflowContracts extends PluginWorkflowContracts {
  diagnosticsWorkflow: (input?: DiagnosticsInput) => Promise<DiagnosticsResult>;
  connectionCheckWorkflow: (input: ConnectionCheckInput) => Promise<ConnectionCheckResult>;
  actionWorkflow: (input: ActionWorkflowInput) => Promise<ActionWorkflowResult>;
  webhookDeliveryWorkflow: (input: WebhookDeliveryInput) => Promise<WebhookDeliveryResult>;
  webhookEndpointWorkflow: (input: WebhookEndpointInput) => Promise<WebhookEndpointResult>;
  syncWorkflow: (input: SyncWorkflowInput) => Promise<SyncWorkflowResult>;
  onEventWorkflow: (input: OnEventWorkflowInput) => Promise<OnEventWorkflowResult>;
  syncWebhookWorkflow: (input: SyncWebhookWorkflowInput) => Promise<SyncWebhookWorkflowResult>;
}

export type WorkflowName = keyof WorkflowContracts;
export type WorkflowFn<K extends WorkflowName> = WorkflowContracts[K];

const names: Record<Exclude<WorkflowName, keyof PluginWorkflowContracts>, true> = {
  diagnosticsWorkflow: true,
  connectionCheckWorkflow: true,
  actionWorkflow: true,
  webhookDeliveryWorkflow: true,
  webhookEndpointWorkflow: true,
  syncWorkflow: true,
  onEventWorkflow: true,
  syncWebhookWorkflow: true,
};

/** Every workflow type name, sorted. */
export const WORKFLOW_NAMES: readonly WorkflowName[] = [...(Object.keys(names) as WorkflowName[]), ...pluginWorkflowNames].sort();

// ---------------------------------------------------------------------------------------------
// Workflow and schedule ids

/** `action:{env}:{run id}`: one workflow per action run. */
export function actionWorkflowId(env: string, runId: string): string {
  return `action:${env}:${runId}`;
}

// Schedule ids hold the task queue (`{prefix}-{env}`), so two deployments sharing a Temporal
// namespace (two SWITCHYARD_TASK_QUEUE_PREFIX) never share a schedule. Releases before issue 28
// used the environment alone: `legacyScheduleTarget` maps those ids to these.

/** `check:{prefix}-{env}:{integration}:{connection}`: the connection check's schedule and its first run. */
export function checkWorkflowId(taskQueuePrefix: string, env: string, integration: string, connection: string): string {
  return `check:${taskQueueFor(taskQueuePrefix, env)}:${integration}:${connection}`;
}

/** `on-event:{event}:{env}:{integration}:{connection}:{connection pk}`: once per connection and event. */
export function onEventWorkflowId(env: string, event: string, integration: string, connection: string, connectionPk: number): string {
  return `on-event:${event}:${env}:${integration}:${connection}:${connectionPk}`;
}

/** `sync:{prefix}-{env}:{integration}:{connection}:{sync}`: a sync's schedule, and the workflow id of its runs. */
export function syncScheduleId(taskQueuePrefix: string, env: string, integration: string, connection: string, syncName: string): string {
  return `sync:${taskQueueFor(taskQueuePrefix, env)}:${integration}:${connection}:${syncName}`;
}

/**
 * For a schedule id of the former scheme (`sync:{env}:…` or `check:{env}:…`, `env` one of
 * `environments`): its environment, the task queue its runs went to if it is this deployment's,
 * and its id under the current scheme. Null for any other id. The environment part tells the two
 * schemes apart: a task queue (`{prefix}-{env}`) is never an environment name.
 */
export function legacyScheduleTarget(
  id: string,
  taskQueuePrefix: string,
  environments: readonly string[],
): { env: string; taskQueue: string; currentId: string } | null {
  const m = /^(sync|check):([^:]+):(.+)$/.exec(id);
  if (!m || !environments.includes(m[2]!)) return null;
  const taskQueue = taskQueueFor(taskQueuePrefix, m[2]!);
  return { env: m[2]!, taskQueue, currentId: `${m[1]}:${taskQueue}:${m[3]}` };
}

/** A run of a sync started outside its schedule; `unique` tells triggers apart. */
export function syncTriggerWorkflowId(scheduleId: string, unique: string): string {
  return `${scheduleId}:trigger-${unique}`;
}

/** `sync-webhook:{env}:{integration}:{connection}:{sync}:{event}`: one run per sync and third-party event. */
export function syncWebhookWorkflowId(env: string, integration: string, connection: string, syncName: string, eventKey: string): string {
  return `sync-webhook:${env}:${integration}:${connection}:${syncName}:${eventKey}`;
}

/** `webhook:{delivery id}`: one workflow per webhook delivery, ever. */
export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `webhook:${deliveryId}`;
}

/** `webhook-endpoint:{env}:{endpoint key}`: one long-lived workflow per webhook endpoint (continued as new). */
export function webhookEndpointWorkflowId(env: string, endpointKey: string): string {
  return `webhook-endpoint:${env}:${endpointKey}`;
}

/** `diagnostics:{env}:{unique}`. */
export function diagnosticsWorkflowId(env: string, unique: string): string {
  return `diagnostics:${env}:${unique}`;
}

// ---------------------------------------------------------------------------------------------
// Typed starts: the name picks the signature, so `args` (and the result) are checked by tsc.

export type StartOptions<K extends WorkflowName> = WorkflowStartOptions<WorkflowFn<K>>;

export function startWorkflow<K extends WorkflowName>(
  client: Client,
  workflowType: K,
  options: StartOptions<K>,
): Promise<WorkflowHandleWithStartDetails<WorkflowFn<K>>> {
  return client.workflow.start<WorkflowFn<K>>(workflowType, options);
}

/** Signals the workflow, starting it first when it is not running (`args` checked against its input). */
export function signalWithStartWorkflow<K extends WorkflowName, SA extends unknown[]>(
  client: Client,
  workflowType: K,
  options: WithWorkflowArgs<WorkflowFn<K>, WorkflowSignalWithStartOptions<SA>>,
): Promise<WorkflowHandleWithSignaledRunId<WorkflowFn<K>>> {
  return client.workflow.signalWithStart<WorkflowFn<K>, SA>(workflowType, options);
}

export function executeWorkflow<K extends WorkflowName>(client: Client, workflowType: K, options: StartOptions<K>): Promise<WorkflowResultType<WorkflowFn<K>>> {
  return client.workflow.execute<WorkflowFn<K>>(workflowType, options);
}

/** A handle on a running (or finished) workflow of type `workflowType`: its result and queries are typed. */
export function workflowHandle<K extends WorkflowName>(client: Client, _workflowType: K, workflowId: string, runId?: string): WorkflowHandle<WorkflowFn<K>> {
  return client.workflow.getHandle<WorkflowFn<K>>(workflowId, runId);
}

/** A schedule's `startWorkflow` action, with `args` checked against the workflow's input. */
export function scheduleAction<K extends WorkflowName>(
  workflowType: K,
  action: Omit<ScheduleOptionsStartWorkflowAction<WorkflowFn<K>>, 'type' | 'workflowType'>,
): ScheduleOptionsStartWorkflowAction<WorkflowFn<K>> {
  return { type: 'startWorkflow', workflowType, ...action };
}
