/**
 * @module temporal/client — the Temporal client the API uses, and the registration of our search
 * attributes on servers we did not start. Task-queue naming is in workflows/contracts.ts; how the
 * connection is secured and retried is in ./connection.ts.
 */
import { Client, Connection, type ClientInterceptors, type ConnectionLike } from '@temporalio/client';
import { searchAttributeNames } from './search-attributes.js';
import { connectWithRetry, plainTemporal, type ConnectRetryLog, type TemporalConnectionSettings } from './connection.js';

/** Clients that share their connection with this process's workers (see `eagerStart`). */
const sharingWorkerConnection = new WeakSet<Client>();

/**
 * `target`: a plain `host:port` or full settings (TLS, API key, retry). `interceptors`: OpenTelemetry's,
 * when telemetry is on (lib/otel). `workerConnection`: the NativeConnection of this process's workers
 * (API and worker in one process), which lets a start hand the workflow's first task straight to a
 * local worker (`eagerStart`).
 */
export async function connectClient(
  target: string | TemporalConnectionSettings,
  namespace: string,
  interceptors?: ClientInterceptors,
  log?: ConnectRetryLog,
  workerConnection?: ConnectionLike,
): Promise<Client> {
  const s = typeof target === 'string' ? plainTemporal(target) : target;
  const connection =
    workerConnection ??
    (await connectWithRetry('client', s, () => Connection.connect({ address: s.address, tls: s.tls, ...(s.apiKey ? { apiKey: s.apiKey } : {}) }), log));
  const client = new Client({ connection, namespace, ...(interceptors ? { interceptors } : {}) });
  if (workerConnection) sharingWorkerConnection.add(client);
  return client;
}

/**
 * Start options asking for eager workflow start when this client shares its connection with a
 * worker of the same process: the server returns the first workflow task in the start's answer and
 * that worker runs it at once, one server hop less. The server falls back to a normal start when no
 * local worker slot is free; the SDK throws on a request from any other client, hence the check.
 */
export function eagerStart(client: Client): { requestEagerStart?: true } {
  return sharingWorkerConnection.has(client) ? { requestEagerStart: true } : {};
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
