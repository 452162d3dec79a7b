/**
 * Base paths as Nango's (issue 30, item 3), the check shared by the base-path tables: a function
 * written for Nango calls an endpoint relative to the provider's base URL, so our base URL must not
 * repeat a prefix the endpoint already carries. Each row is one endpoint, with the connection-config
 * keys Nango names, and the URL the provider's own docs give for it, joined as the proxy joins them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildUrl } from '../../lib/http/provider-client.js';
import { getCatalogProvider, resolveBaseUrl } from './providers.js';

export type PathRow = [provider: string, connectionConfig: Record<string, string>, endpoint: string, url: string];

/** One test per family: every row's endpoint on the catalogue base URL is the documented URL. */
export function testPathFamilies(families: Record<string, PathRow[]>): void {
  for (const [family, rows] of Object.entries(families)) {
    test(`${family}: an endpoint on the catalogue base URL is the URL the provider documents`, () => {
      for (const [name, connectionConfig, endpoint, url] of rows) {
        const provider = getCatalogProvider(name);
        assert.ok(provider, `${name} is in the catalogue`);
        assert.equal(buildUrl(resolveBaseUrl(provider, {}, connectionConfig), endpoint).toString(), url, name);
      }
    });
  }
}
