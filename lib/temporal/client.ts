/**
 * @module temporal/client — the Temporal client the API uses, and the registration of our search
 * attributes on servers we did not start. Task-queue naming is in workflows/contracts.ts.
 */
import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import { searchAttributeNames } from './search-attributes.js';

/** `interceptors`: OpenTelemetry's, when telemetry is on (lib/otel). */
export async function connectClient(address: string, namespace: string, interceptors?: ClientInterceptors): Promise<Client> {
  const connection = await Connection.connect({ address });
  return new Client({ connection, namespace, ...(interceptors ? { interceptors } : {}) });
}

/** Adds the Keyword search attributes when missing (the dev server we start has them already). */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<void> {
  const existing = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = searchAttributeNames.filter((n) => !(n in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  await client.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map((n) => [n, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
  });
}
