/**
 * @module sdk/runtime — bundled into every compiled script (by `switchyard compile`) and run inside
 * the sandbox: `describeDefinition` turns a definition into its manifest (JSON Schemas made by the
 * project's own zod), `runDefinition` dispatches a run to exec / onWebhook with the sandbox's context
 * completed by the host-free helpers (ActionError, logger, zodValidateInput). The project's zod is
 * handed in by the generated entry.
 */
import { withHelpers } from './helpers.js';
import type { AnyScriptDefinition, NangoSyncEndpointV2, SyncContext } from './types.js';

type ToJsonSchema = (schema: never, params?: { io?: 'input' | 'output'; unrepresentable?: 'any' | 'throw' }) => unknown;

export interface DescribedScript {
  type: 'sync' | 'action' | 'on-event';
  description: string;
  version: string | null;
  endpoints: NangoSyncEndpointV2[];
  frequency: string | null;
  autoStart: boolean;
  syncType: 'full' | 'incremental' | null;
  event: string | null;
  scopes: string[];
  webhookSubscriptions: string[];
  models: Record<string, unknown>;
  input: unknown;
  output: unknown;
  metadata: unknown;
  checkpoint: unknown;
  /** createTool: an action exposed to agents, with its hints (for the tools / MCP API). */
  tool?: { title: string | null; annotations: Record<string, boolean> };
}

export function describeDefinition(def: AnyScriptDefinition, toJSONSchema: ToJsonSchema): DescribedScript {
  if (!def || typeof def !== 'object' || !('type' in def)) {
    throw new Error('the script must `export default` createSync(...), createAction(...) or createOnEvent(...) from switchyard/sdk');
  }
  const js = (schema: unknown, io: 'input' | 'output') => (schema ? toJSONSchema(schema as never, { io, unrepresentable: 'any' }) : null);
  const base = {
    description: def.description ?? '',
    version: def.version ?? null,
    metadata: js(def.metadata, 'output'),
    scopes: 'scopes' in def && Array.isArray(def.scopes) ? def.scopes : [],
  };
  if (def.type === 'sync') {
    return {
      ...base,
      type: 'sync',
      endpoints: def.endpoints ?? [],
      frequency: def.frequency ?? null,
      autoStart: def.autoStart ?? false,
      syncType: def.syncType ?? 'full',
      event: null,
      webhookSubscriptions: def.webhookSubscriptions ?? [],
      models: Object.fromEntries(Object.entries(def.models ?? {}).map(([name, schema]) => [name, js(schema, 'output')])),
      input: null,
      output: null,
      checkpoint: js(def.checkpoint, 'output'),
    };
  }
  if (def.type === 'action') {
    return {
      ...base,
      type: 'action',
      endpoints: def.endpoint ? [def.endpoint] : [],
      frequency: null,
      autoStart: false,
      syncType: null,
      event: null,
      webhookSubscriptions: [],
      models: {},
      input: js(def.input, 'input'),
      output: js(def.output, 'output'),
      checkpoint: null,
      ...('tool' in def && def.tool === true && { tool: { title: def.title ?? null, annotations: def.annotations ?? {} } }),
    };
  }
  if (def.type === 'on-event') {
    return {
      ...base,
      type: 'on-event',
      endpoints: [],
      frequency: null,
      autoStart: false,
      syncType: null,
      event: def.event,
      webhookSubscriptions: [],
      models: {},
      input: null,
      output: null,
      checkpoint: null,
    };
  }
  throw new Error(`unknown script type ${String((def as { type: unknown }).type)}`);
}

export type RunKind = 'action' | 'sync' | 'webhook' | 'event';

export async function runDefinition(def: AnyScriptDefinition, kind: RunKind, sandboxCtx: SyncContext<never, never>, arg: unknown): Promise<unknown> {
  const ctx = withHelpers(sandboxCtx);
  if (kind === 'action' && def.type === 'action') {
    return def.exec(ctx as never, def.input ? (def.input.parse(arg) as never) : (arg as never));
  }
  if (kind === 'sync' && def.type === 'sync') return def.exec(ctx as never);
  if (kind === 'webhook' && def.type === 'sync') {
    if (!def.onWebhook) throw new Error('this sync has no onWebhook handler');
    return def.onWebhook(ctx as never, arg);
  }
  if (kind === 'event' && def.type === 'on-event') return def.exec(ctx as never);
  throw new Error(`a ${def.type} script cannot run as ${kind}`);
}
