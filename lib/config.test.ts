import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';
import { temporalConnectionSettings } from './temporal/connection.js';

const PEM = (label: string, body: string) => `-----BEGIN ${label}-----\n${Buffer.from(body).toString('base64')}\n-----END ${label}-----\n`;
const base = { TEMPORAL_ADDRESS: 'temporal.example:7233' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems;
  }
  assert.fail('the configuration was accepted');
}

describe('operations settings', () => {
  test('defaults: plain TCP to Temporal, pool of 20, a worker serves every environment, 10 s drain, 10 connection attempts', () => {
    const c = loadConfig({ ...base });
    assert.equal(c.temporalTls, null);
    assert.equal(c.DATABASE_POOL_SIZE, 20);
    assert.equal(c.SWITCHYARD_WORKER_ENVIRONMENTS, undefined);
    assert.equal(c.SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS, 10_000);
    assert.equal(c.TEMPORAL_CONNECT_ATTEMPTS, 10);
    assert.deepEqual(temporalConnectionSettings(c, 'temporal.example:7233').tls, false);
  });

  test('sync schedule timing: 60-minute catch-up window and 60 s spread by default; a window under a minute or a negative spread is refused by name', () => {
    const c = loadConfig({ ...base });
    assert.equal(c.SWITCHYARD_SYNC_CATCHUP_MINUTES, 60);
    assert.equal(c.SWITCHYARD_SYNC_SPREAD_SECONDS, 60);
    assert.equal(loadConfig({ ...base, SWITCHYARD_SYNC_SPREAD_SECONDS: '0' }).SWITCHYARD_SYNC_SPREAD_SECONDS, 0);
    const p = problems({ ...base, SWITCHYARD_SYNC_CATCHUP_MINUTES: '0', SWITCHYARD_SYNC_SPREAD_SECONDS: '-1' });
    assert.equal(p.length, 2, p.join('\n'));
    assert.match(p[0]!, /^SWITCHYARD_SYNC_CATCHUP_MINUTES: /);
    assert.match(p[1]!, /^SWITCHYARD_SYNC_SPREAD_SECONDS: /);
  });

  test('workflow cache: 200 runs per environment by default; fewer than 2 or not a number is refused by name', () => {
    assert.equal(loadConfig({ ...base }).SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS, 200);
    assert.equal(loadConfig({ ...base, SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS: '50' }).SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS, 50);
    for (const bad of ['1', 'lots'])
      assert.match(problems({ ...base, SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS: bad }).join('\n'), /^SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS: /);
  });

  test('TLS files that do not exist are named with their variable', () => {
    const p = problems({ ...base, TEMPORAL_TLS_CERT: '/nonexistent/client.pem', TEMPORAL_TLS_KEY: '/nonexistent/client.key' });
    assert.equal(p.length, 2, p.join('\n'));
    assert.match(p[0]!, /^TEMPORAL_TLS_CERT: file \/nonexistent\/client\.pem does not exist/);
    assert.match(p[1]!, /^TEMPORAL_TLS_KEY: file \/nonexistent\/client\.key does not exist/);
  });

  test('a file that holds no PEM, a certificate without its key, TLS off with TLS settings, TLS without an address: each refused by name', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cfg-'));
    const junk = path.join(dir, 'ca.txt');
    await writeFile(junk, 'not a certificate');
    assert.match(problems({ ...base, TEMPORAL_TLS_CA: junk }).join('\n'), /^TEMPORAL_TLS_CA: file .*ca\.txt holds no PEM block/);
    assert.deepEqual(problems({ ...base, TEMPORAL_TLS_CERT: PEM('CERTIFICATE', 'c') }), [
      'TEMPORAL_TLS_KEY: required with TEMPORAL_TLS_CERT (mTLS needs both)',
    ]);
    assert.deepEqual(problems({ ...base, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' }), ['TEMPORAL_TLS: is false but TEMPORAL_API_KEY need TLS']);
    assert.match(problems({ TEMPORAL_TLS: 'true' }).join('\n'), /^TEMPORAL_ADDRESS: required with TEMPORAL_TLS/);
    assert.match(problems({ ...base, TEMPORAL_TLS: 'yes' }).join('\n'), /^TEMPORAL_TLS: /);
  });

  test('mTLS from files and from inline PEM (with \\n escapes, as env files carry them) builds the SDK options', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cfg-'));
    const files = { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'c.pem') };
    await writeFile(files.ca, PEM('CERTIFICATE', 'ca'));
    await writeFile(files.cert, PEM('CERTIFICATE', 'client'));
    const inlineKey = PEM('PRIVATE KEY', 'key').replace(/\n/g, '\\n');
    const c = loadConfig({
      ...base,
      TEMPORAL_TLS_CA: files.ca,
      TEMPORAL_TLS_CERT: files.cert,
      TEMPORAL_TLS_KEY: inlineKey,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.internal',
    });
    const s = temporalConnectionSettings(c, base.TEMPORAL_ADDRESS);
    assert.ok(s.tls);
    assert.equal(s.tls.serverNameOverride, 'frontend.internal');
    assert.equal(s.tls.serverRootCACertificate!.toString(), PEM('CERTIFICATE', 'ca'));
    assert.equal(s.tls.clientCertPair!.crt.toString(), PEM('CERTIFICATE', 'client'));
    assert.equal(s.tls.clientCertPair!.key.toString(), PEM('PRIVATE KEY', 'key'));
    assert.equal(s.apiKey, undefined);
  });

  test('an API key alone (Temporal Cloud) turns TLS on with the system roots', () => {
    const s = temporalConnectionSettings(loadConfig({ ...base, TEMPORAL_API_KEY: 'cloud-key', TEMPORAL_NAMESPACE: 'acme.a1b2c' }), base.TEMPORAL_ADDRESS);
    assert.deepEqual(s.tls, {});
    assert.equal(s.apiKey, 'cloud-key');
  });

  test('pool size, worker environments, drain and attempts are validated', () => {
    const c = loadConfig({
      ...base,
      DATABASE_POOL_SIZE: '5',
      SWITCHYARD_WORKER_ENVIRONMENTS: ' prod ',
      SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS: '30000',
      TEMPORAL_CONNECT_ATTEMPTS: '3',
    });
    assert.equal(c.DATABASE_POOL_SIZE, 5);
    assert.deepEqual(c.SWITCHYARD_WORKER_ENVIRONMENTS, ['prod']);
    assert.equal(c.SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS, 30_000);
    assert.equal(temporalConnectionSettings(c, base.TEMPORAL_ADDRESS).retry.attempts, 3);
    assert.match(problems({ ...base, DATABASE_POOL_SIZE: '0' }).join('\n'), /^DATABASE_POOL_SIZE: /);
    assert.deepEqual(loadConfig({ ...base, SWITCHYARD_WORKER_ENVIRONMENTS: 'prod,staging' }).SWITCHYARD_WORKER_ENVIRONMENTS, ['prod', 'staging']);
    assert.match(problems({ ...base, SWITCHYARD_WORKER_ENVIRONMENTS: 'prod,Staging!' }).join('\n'), /^SWITCHYARD_WORKER_ENVIRONMENTS\.1: /);
    assert.match(problems({ ...base, SWITCHYARD_WORKER_ENVIRONMENTS: ',' }).join('\n'), /^SWITCHYARD_WORKER_ENVIRONMENTS: name at least one environment/);
  });
});
