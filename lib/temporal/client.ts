/**
 * @module temporal/client — the Temporal client the API uses, and the registration of our search
 * attributes on servers we did not start. Task-queue naming is in workflows/contracts.ts; how the
 * connection is secured and retried is in ./connection.ts.
 */
import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import { searchAttributeNames } from './search-attributes.js';
import { connectWithRetry, plainTemporal, type ConnectRetryLog, type TemporalConnectionSettings } from './connection.js';

/** `target`: a plain `host:port` or full settings (TLS, API key, retry). `interceptors`: OpenTelemetry's, when telemetry is on (lib/otel). */
export async function connectClient(
  target: string | TemporalConnectionSettings,
  namespace: string,
  interceptors?: ClientInterceptors,
  log?: ConnectRetryLog,
): Promise<Client> {
  const s = typeof target === 'string' ? plainTemporal(target) : target;
  const connection = await connectWithRetry(
    'client',
    s,
    () => Connection.connect({ address: s.address, tls: s.tls, ...(s.apiKey ? { apiKey: s.apiKey } : {}) }),
    log,
  );
  return new Client({ connection, namespace, ...(interceptors ? { interceptors } : {}) });
}

export interface SearchAttributeLog {
  warn(obj: object, msg: string): void;
}

/**
 * Adds the Keyword search attributes when missing (the dev server we start has them already). Where
 * the operator API is closed to us (Temporal Cloud with an API key: attributes are added in its UI
 * or with tcld), this logs what to register and goes on; workflows started while they are missing
 * are refused by the server, so the warning names each one.
 */
export async function ensureSearchAttributes(client: Client, namespace: string, log?: SearchAttributeLog): Promise<void> {
  try {
    const existing = await client.connection.operatorService.listSearchAttributes({ namespace });
    const missing = searchAttributeNames.filter((n) => !(n in (existing.customAttributes ?? {})));
    if (missing.length === 0) return;
    await client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((n) => [n, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
    });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    // PERMISSION_DENIED, UNIMPLEMENTED, UNAUTHENTICATED: not ours to change on this server.
    if (code !== 7 && code !== 12 && code !== 16) throw err;
    log?.warn(
      { namespace, searchAttributes: searchAttributeNames, err: err instanceof Error ? err.message : String(err) },
      `cannot register search attributes in namespace ${namespace} (operator API refused): register ${searchAttributeNames.join(', ')} as Keyword there (Temporal Cloud: its UI or tcld)`,
    );
  }
}
