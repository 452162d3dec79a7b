/**
 * @module sdk — what integration scripts (pre-built and custom) import: createAction, createSync,
 * createOnEvent, ActionError. Models and inputs are zod 4 schemas; exec's argument and result types come from them.
 * Integration projects import it as `switchyard/sdk`.
 */
import type { z } from 'zod';
import type { ActionDefinition, OnEventDefinition, SyncDefinition } from './types.js';

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

export function createOnEvent<M extends z.ZodType = z.ZodType>(def: Omit<OnEventDefinition<M>, 'type'>): OnEventDefinition<M> {
  return { ...def, type: 'on-event' };
}

export { ActionError } from './errors.js';
export type * from './types.js';
