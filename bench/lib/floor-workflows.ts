/**
 * @module bench/lib/floor-workflows — the bare workflow of the action floor: one activity, nothing
 * else (no database, no search attributes).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './floor-activities.js';

const { httpGet } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

export async function bareWorkflow(url: string, apiKey: string): Promise<{ status: number }> {
  return { status: await httpGet(url, apiKey) };
}
