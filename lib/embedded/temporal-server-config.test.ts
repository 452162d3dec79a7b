/**
 * The dynamic config the embedded Temporal server (SWITCHYARD_TEMPORAL=server) is started with: the
 * settings 1,000 one-minute schedules need on PostgreSQL (issue 32), kept when the benchmarks add
 * their own values.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { serverConfig, serverDynamicConfig } from './temporal-server.js';
import { DEV_SERVER_DYNAMIC_CONFIG } from './temporal.js';

const value = (config: ReturnType<typeof serverDynamicConfig>, key: string) => config[key]?.[0]?.value;

describe('the Temporal server dynamic config', () => {
  test("a history shard's persistence writes run several at a time, not one (the server's default)", () => {
    assert.ok(Number(value(serverDynamicConfig(), 'history.shardIOConcurrency')) > 1);
  });

  test('the per-namespace workers that run schedules poll with more than their default 2 pollers', () => {
    const options = value(serverDynamicConfig(), 'worker.perNamespaceWorkerOptions') as Record<string, number> | undefined;
    assert.ok((options?.MaxConcurrentWorkflowTaskPollers ?? 2) > 2);
    assert.ok((options?.MaxConcurrentActivityTaskPollers ?? 2) > 2);
  });

  // Off (the dev server's default when the key is not given, and what this config said before), each
  // workflow start, upsert and visibility write read the cluster metadata again: 14 reads a sync run.
  // The server registers its attributes at runtime and uses them at once: it reads them fresh.
  test('the search-attribute cache is on for the dev server (attributes given at launch), off for the server', () => {
    assert.equal(value(serverDynamicConfig(), 'system.forceSearchAttributesCacheRefreshOnRead'), true);
    assert.equal(DEV_SERVER_DYNAMIC_CONFIG['system.forceSearchAttributesCacheRefreshOnRead'], false);
  });

  // lib/pq (`postgres12`) has PostgreSQL parse and plan each of the ~120 statements a sync run costs.
  test('both stores go through pgx, which keeps its statements prepared', () => {
    const target = { host: '127.0.0.1', port: '5432', user: 'u', password: 'p' };
    const ports = {
      frontend: 1,
      frontendHttp: 2,
      history: 3,
      matching: 4,
      worker: 5,
      frontendMembership: 6,
      historyMembership: 7,
      matchingMembership: 8,
      workerMembership: 9,
    };
    const { datastores } = serverConfig(target, { main: 'm', visibility: 'v' }, ports, 'dynamic.yaml').persistence;
    assert.deepEqual(
      Object.values(datastores).map((d) => d.sql.pluginName),
      ['postgres12_pgx', 'postgres12_pgx'],
    );
  });

  test('values given at start are added or replace the defaults; the rest stay', () => {
    const config = serverDynamicConfig({ 'history.shardIOConcurrency': 2, 'matching.numTaskqueueReadPartitions': 1 });
    assert.equal(value(config, 'history.shardIOConcurrency'), 2);
    assert.equal(value(config, 'matching.numTaskqueueReadPartitions'), 1);
    assert.equal(value(config, 'worker.perNamespaceWorkerCount'), 4);
  });
});
