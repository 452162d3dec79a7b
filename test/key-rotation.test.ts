/**
 * Encryption key rotation: a new key is added, data re-encrypted while the platform runs, and the
 * old key stays readable until the rotation finishes.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { parseKey, SecretBox } from '../lib/crypto.js';
import { countStale, reencryptAll } from '../lib/crypto-rotation.js';
import { startMetabaseFake } from './fakes/index.js';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('encryption key rotation', () => {
  const platforms: TestPlatform[] = [];
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  after(async () => {
    for (const p of platforms) await p.stop().catch(() => undefined);
    await metabase?.close();
  });

  test('old key → both keys → re-encrypt while serving → new key only', async () => {
    const oldKey = randomBytes(32).toString('hex');
    const newKey = randomBytes(32).toString('hex');
    metabase = await startMetabaseFake({ apiKey: 'mb_rotate=' });
    const first = await startTestPlatform({ env: { SWITCHYARD_ENCRYPTION_KEY: oldKey }, runWorker: false });
    platforms.push(first);
    await first.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
    for (let i = 0; i < 30; i++) {
      const res = await first.api('/connections', {
        method: 'POST',
        json: {
          provider_config_key: 'metabase',
          connection_id: `c${i}`,
          connection_config: { domain: metabase.url },
          credentials: { type: 'API_KEY', apiKey: 'mb_rotate=' },
        },
      });
      assert.equal(res.status, 201);
    }
    await first.api('/environment', { key: first.devKey }); // creates the signing key (encrypted)
    await first.stop();
    platforms.pop();

    // Step 2: the new key is current, the old one still readable.
    const both = await startTestPlatform({
      env: {
        SWITCHYARD_ENCRYPTION_KEY: newKey,
        SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS: oldKey,
        DATABASE_URL: first.databaseUrl,
        SWITCHYARD_SECRET_KEY_DEV: first.devKey,
      },
      runWorker: false,
    });
    platforms.push(both);
    const bothBox = new SecretBox(parseKey(newKey), [parseKey(oldKey)]);
    assert.ok((await countStale(both.platform.deps.db, bothBox)) >= 30);
    // Reads go on while the re-encryption runs.
    const reads = Promise.all(Array.from({ length: 30 }, (_, i) => both.api(`/connections/c${i}?provider_config_key=metabase`).then((r) => r.status)));
    const report = await reencryptAll(both.platform.deps.db, bothBox, 7);
    assert.deepEqual(new Set(await reads), new Set([200]));
    assert.ok(report.reencrypted >= 30, JSON.stringify(report));
    assert.equal(await countStale(both.platform.deps.db, bothBox), 0);
    await both.stop();
    platforms.pop();

    // Step 3: the old key is gone; everything still reads.
    const onlyNew = await startTestPlatform({
      env: { SWITCHYARD_ENCRYPTION_KEY: newKey, DATABASE_URL: first.databaseUrl, SWITCHYARD_SECRET_KEY_DEV: first.devKey },
      runWorker: false,
    });
    platforms.push(onlyNew);
    const conn = (await (await onlyNew.api('/connections/c7?provider_config_key=metabase')).json()) as Json;
    assert.equal(conn.credentials.apiKey, 'mb_rotate=');
    assert.equal((await onlyNew.api('/environment')).status, 200);
  });
});
