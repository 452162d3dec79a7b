/**
 * Base paths as Nango's (issue 30, item 3), the check shared by the base-path tables: a function
 * written for Nango calls an endpoint relative to the provider's base URL, so our base URL must not
 * repeat a prefix the endpoint already carries. Each row is one endpoint, with the connection-config
 * keys Nango names, and the URL the provider's own docs give for it, joined as the proxy joins them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildUrl } from '../../lib/http/provider-client.js';
import { endpoints, type Endpoints } from '../connections/target.js';
import type { Integration } from '../integrations/store.js';
import { getCatalogProvider, type Provider } from './providers.js';

/** A catalogue provider's endpoints for one connection config, with the same value checks every caller gets (no custom domains, no private hosts). */
export function catalogEndpoints(provider: Provider, connectionConfig: Record<string, unknown>): Endpoints {
  const integration: Integration = {
    id: 0,
    environmentId: 0,
    uniqueKey: provider.name,
    provider: provider.name,
    displayName: null,
    credentials: null,
    integrationConfig: {},
    custom: null,
    forwardWebhooks: false,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
  return endpoints([], provider, integration, connectionConfig);
}

export type PathRow = [provider: string, connectionConfig: Record<string, string>, endpoint: string, url: string];

/** One test per family: every row's endpoint on the catalogue base URL is the documented URL. */
export function testPathFamilies(families: Record<string, PathRow[]>): void {
  for (const [family, rows] of Object.entries(families)) {
    test(`${family}: an endpoint on the catalogue base URL is the URL the provider documents`, () => {
      for (const [name, connectionConfig, endpoint, url] of rows) {
        const provider = getCatalogProvider(name);
        assert.ok(provider, `${name} is in the catalogue`);
        assert.equal(buildUrl(catalogEndpoints(provider, connectionConfig).baseUrl(), endpoint).toString(), url, name);
      }
    });
  }
}
