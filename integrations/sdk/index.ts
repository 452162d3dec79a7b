/**
 * @module sdk — what integration scripts (pre-built and custom) import: createAction, createSync,
 * createOnEvent, createTool, ActionError. Nango projects import it as `'nango'` (the same module). Models and inputs are zod 4 schemas; exec's argument and result types come from them.
 * Integration projects import it as `switchyard/sdk`.
 */
import type { z } from 'zod';
import type { ActionDefinition, OnEventDefinition, SyncDefinition, ToolDefinition } from './types.js';

export function createAction<I extends z.ZodType, O extends z.ZodType, M extends z.ZodType = z.ZodType>(
  def: Omit<ActionDefinition<I, O, M>, 'type'>,
): ActionDefinition<I, O, M> {
  return { ...def, type: 'action' };
}

export function createSync<Models extends Record<string, z.ZodType>, M extends z.ZodType = z.ZodType, C extends z.ZodType = z.ZodType>(
  def: Omit<SyncDefinition<Models, M, C>, 'type'>,
): SyncDefinition<Models, M, C> {
  return { ...def, type: 'sync' };
}

/**
 * A tool: an action exposed to agents (the MCP / tools API lists it with its input schema). It runs
 * and deploys as an action; `title` and `annotations` are hints for agents.
 */
export function createTool<I extends z.ZodType, O extends z.ZodType, M extends z.ZodType = z.ZodType>(
  def: Omit<ToolDefinition<I, O, M>, 'type' | 'tool'>,
): ToolDefinition<I, O, M> {
  return { ...def, type: 'action', tool: true };
}

export function createOnEvent<M extends z.ZodType = z.ZodType>(def: Omit<OnEventDefinition<M>, 'type'>): OnEventDefinition<M> {
  return { ...def, type: 'on-event' };
}

export { ActionError } from './errors.js';
export { zodValidateInput } from './helpers.js';
export type * from './types.js';
