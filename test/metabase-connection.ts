/**
 * Test setup shared by the script tests that run against a fake behind the metabase provider: the
 * integration, the connection `acme` (API key) to the fake's URL, the script endpoints enabled, and
 * triggering an action on it.
 */
import assert from 'node:assert/strict';
import type { TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const ACME = { 'connection-id': 'acme', 'provider-config-key': 'metabase' };

/** `endpoints` are the POST paths of the actions to enable, e.g. `/create-object`. */
export async function connectMetabase(t: TestPlatform, domain: string, apiKey: string, endpoints: string[]): Promise<void> {
  await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
  const res = await t.api('/connections', {
    method: 'POST',
    json: { provider_config_key: 'metabase', connection_id: 'acme', connection_config: { domain }, credentials: { type: 'API_KEY', apiKey } },
  });
  assert.equal(res.status, 201, await res.clone().text());
  const patched = await t.api('/integrations/metabase/endpoints', {
    method: 'PATCH',
    json: { endpoints: endpoints.map((path) => ({ method: 'POST', path, enabled: true })) },
  });
  assert.equal(patched.status, 200, await patched.clone().text());
}

export async function triggerAction(t: TestPlatform, action: string, input: Json): Promise<{ status: number; body: Json }> {
  const res = await t.api('/action/trigger', { method: 'POST', headers: ACME, json: { action_name: action, input } });
  return { status: res.status, body: (await res.json()) as Json };
}
