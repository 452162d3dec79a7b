/**
 * @module temporal/client — the Temporal client the API uses, and the registration of our search
 * attributes on servers we did not start. Task-queue naming is in workflows/contracts.ts.
 */
import { Client, Connection, type ClientInterceptors, type ConnectionLike } from '@temporalio/client';
import { searchAttributeNames } from './search-attributes.js';

/** Clients that share their connection with this process's workers (see `eagerStart`). */
const sharingWorkerConnection = new WeakSet<Client>();

/**
 * `interceptors`: OpenTelemetry's, when telemetry is on (lib/otel). `workerConnection`: the
 * NativeConnection of this process's workers (API and worker in one process), which lets a start
 * hand the workflow's first task straight to a local worker (`eagerStart`).
 */
export async function connectClient(address: string, namespace: string, interceptors?: ClientInterceptors, workerConnection?: ConnectionLike): Promise<Client> {
  const connection = workerConnection ?? (await Connection.connect({ address }));
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
