/**
 * @module bench/lib/floor-activities — the floor's one activity: the same GET the no-op action
 * makes (same URL, same API key header, keep-alive undici Agent, JSON body parsed).
 */
import { Agent, request } from 'undici';

const agent = new Agent({ keepAliveTimeout: 30_000 });

export const floorActivities = {
  async httpGet(url: string, apiKey: string): Promise<number> {
    const res = await request(url, { method: 'GET', dispatcher: agent, headers: { accept: 'application/json', 'x-api-key': apiKey } });
    JSON.parse(await res.body.text());
    return res.statusCode;
  },
};

export type FloorActivities = typeof floorActivities;
