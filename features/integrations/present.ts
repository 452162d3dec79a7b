/**
 * @module features/integrations/present — an integration as Nango's API shows it
 * (`GET /integrations/:uniqueKey`, and a function's `nango.getIntegration()`): the webhook URL and the
 * credentials only when asked for with `include`.
 */
import type { Config } from '../../lib/config.js';
import type { Queryable } from '../../lib/db/pool.js';
import { findProvider } from '../providers/store.js';
import type { Integration } from './store.js';

export type IntegrationInclude = 'webhook' | 'credentials';

export interface PublicIntegration {
  unique_key: string;
  provider: string;
  display_name: string;
  logo: string;
  forward_webhooks: boolean;
  integration_config: Record<string, string>;
  created_at: string;
  updated_at: string;
  webhook_url?: string;
  credentials?: unknown;
}

export async function publicIntegration(
  deps: { db: Queryable; config: Pick<Config, 'publicUrl'> },
  env: { id: number; uuid: string },
  i: Integration,
  include: readonly string[],
): Promise<PublicIntegration> {
  const provider = await findProvider(deps.db, env.id, i.provider);
  return {
    unique_key: i.uniqueKey,
    provider: i.provider,
    display_name: i.displayName ?? provider?.displayName ?? i.provider,
    logo: `${deps.config.publicUrl}/images/logos/${i.provider}.svg`,
    forward_webhooks: i.forwardWebhooks,
    integration_config: Object.fromEntries(Object.entries(i.integrationConfig).filter(([, v]) => v !== undefined)) as Record<string, string>,
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    ...(include.includes('webhook') ? { webhook_url: `${deps.config.publicUrl}/webhook/${env.uuid}/${encodeURIComponent(i.uniqueKey)}` } : {}),
    ...(include.includes('credentials') ? { credentials: i.credentials } : {}),
  };
}
