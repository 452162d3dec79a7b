/**
 * @module sdk — what integration scripts (pre-built and custom) import: createAction, createSync,
 * createOnEvent, createTool, ActionError. Nango projects import it as `'nango'` (the same module),
 * typed as Nango's function SDK (./nango.ts). Models and inputs are zod 4 schemas; exec's argument
 * and result types come from them. Integration projects import it as `switchyard/sdk`.
 */
import type * as z from 'zod';
import type {
  CreateActionProps,
  CreateActionResponse,
  CreateOnEventProps,
  CreateOnEventResponse,
  CreateSyncProps,
  CreateSyncResponse,
  CreateToolProps,
  CreateToolResponse,
  ZodCheckpoint,
  ZodMetadata,
  ZodModel,
} from './nango.js';

export function createSync<TModels extends Record<string, ZodModel>, TMetadata extends ZodMetadata = undefined, TCheckpoint extends ZodCheckpoint = undefined>(
  params: CreateSyncProps<TModels, TMetadata, TCheckpoint>,
): CreateSyncResponse<TModels, TMetadata, TCheckpoint> {
  return { ...params, type: 'sync' };
}

export function createAction<
  TInput extends z.ZodTypeAny,
  TOutput extends z.ZodTypeAny,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
>(params: CreateActionProps<TInput, TOutput, TMetadata, TCheckpoint>): CreateActionResponse<TInput, TOutput, TMetadata, TCheckpoint> {
  return { ...params, type: 'action' };
}

export function createOnEvent<TMetadata extends ZodMetadata = undefined, TCheckpoint extends ZodCheckpoint = undefined>(
  params: CreateOnEventProps<TMetadata, TCheckpoint>,
): CreateOnEventResponse<TMetadata, TCheckpoint> {
  return { ...params, type: 'on-event' };
}

/**
 * A tool: an action exposed to agents (the MCP / tools API lists it with its input schema). It runs
 * and deploys as an action; `title` and `annotations` are hints for agents.
 */
export function createTool<
  TInput extends z.ZodTypeAny,
  TOutput extends z.ZodTypeAny,
  TMetadata extends ZodMetadata = undefined,
  TCheckpoint extends ZodCheckpoint = undefined,
>(params: CreateToolProps<TInput, TOutput, TMetadata, TCheckpoint>): CreateToolResponse<TInput, TOutput, TMetadata, TCheckpoint> {
  return { ...params, type: 'action', tool: true };
}

export { ActionError } from './errors.js';
export { zodValidateInput } from './helpers.js';
export { createFunction, deriveFunctionCapabilities } from './experimental.js';
export type * from './types.js';
