/**
 * @module bench/lib/setup — an integration of the bench provider, its connections (verified against
 * the Metabase fake), optionally pointed at another fake, with chosen endpoints activated.
 */
import type { ApiClient } from './platform.js';

export const INTEGRATION = 'bench';
export const API_KEY = 'bench-api-key-0123456789';

export async function createIntegration(api: ApiClient, endpoints: { method: string; path: string }[], baseUrl?: string): Promise<void> {
  await api.ok('POST', '/integrations', { json: { provider: 'metabase', unique_key: INTEGRATION } });
  if (baseUrl) await api.ok('PATCH', `/integrations/${INTEGRATION}`, { json: { integration_config: { base_url: baseUrl } } });
  if (endpoints.length) {
    await api.ok('PATCH', `/integrations/${INTEGRATION}/endpoints`, { json: { endpoints: endpoints.map((e) => ({ ...e, enabled: true })) } });
  }
}

export async function createConnection(api: ApiClient, connectionId: string, metabaseUrl: string): Promise<void> {
  await api.ok('POST', '/connections', {
    json: {
      provider_config_key: INTEGRATION,
      connection_id: connectionId,
      connection_config: { hostname: metabaseUrl },
      credentials: { type: 'API_KEY', apiKey: API_KEY },
    },
  });
}

export const connectionHeaders = (connectionId: string) => ({ 'connection-id': connectionId, 'provider-config-key': INTEGRATION });
