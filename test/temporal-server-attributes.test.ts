/**
 * A Temporal server started on fresh databases (lib/embedded/temporal-server.ts) takes a workflow
 * start carrying every one of our search attributes as soon as it is handed over. The attributes are
 * registered at that start, and the server keeps its search-attribute and namespace caches on (issue
 * 32, p8-server): its start waits until the frontend knows them, and one namespace refresh more for
 * the history service. Runs on a private PostgreSQL when the server's binaries are cached (built once
 * for SWITCHYARD_TEMPORAL=server); skipped otherwise.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../lib/embedded/postgres.js';
import { freePort, type EmbeddedTemporal } from '../lib/embedded/temporal.js';
import { startTemporalServer, temporalServerCacheDir } from '../lib/embedded/temporal-server.js';
import { SA, searchAttributesFor } from '../workflows/contracts.js';

const cached = existsSync(path.join(temporalServerCacheDir(), 'gobin', 'server'));

describe('a Temporal server on fresh databases', { skip: cached ? false : 'the Temporal server binaries are not cached' }, () => {
  let work = '';
  let pg: EmbeddedPostgres | null = null;
  let temporal: EmbeddedTemporal | null = null;
  let connection: Connection | null = null;

  after(async () => {
    await connection?.close();
    await temporal?.stop();
    await pg?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('takes a start with all our search attributes right after it is ready', async () => {
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'temporal-server-attributes-'));
    await chmod(work, 0o755);
    const pgDir = path.join(work, 'postgres');
    await mkdir(pgDir, { mode: 0o755 });
    await chmod(pgDir, 0o755);
    pg = await startEmbeddedPostgres(pgDir, await freePort());
    const port = await freePort();
    temporal = await startTemporalServer({ dataDir: work, databaseServerUrl: pg.url, port, headless: true, namespace: 'default', log: () => undefined });
    connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection, namespace: 'default' });
    const labels = { environment: 'dev', integration: 'metabase', connection: 'c-1', script: 'users' };
    // No worker polls this queue: the start alone is what the frontend and history check.
    const handle = await client.workflow.start('probeWorkflow', {
      taskQueue: 'attributes-probe',
      workflowId: 'attributes-probe',
      typedSearchAttributes: searchAttributesFor(labels),
    });
    const described = await handle.describe();
    assert.equal(described.typedSearchAttributes.get(SA.connection), 'c-1');
    assert.equal(described.typedSearchAttributes.get(SA.script), 'users');
    await handle.terminate('probe done');
  });
});
