/**
 * Encryption key rotation: a new key is added, data re-encrypted while the platform runs, and the
 * old key stays readable until the rotation finishes.
 */
import assert from 'node:assert/strict';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { parseKey, SecretBox } from '../lib/crypto.js';
import { countStale, reencryptAll } from '../features/encryption/rotation.js';
import { getConnectionByPk } from '../features/connections/store.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, createMetabaseIntegration, startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A value as the platform wrote it before row binding: format v1, no additional authenticated data. */
function sealV1(keyHex: string, plaintext: string): string {
  const key = Buffer.from(keyHex, 'hex');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const id = createHash('sha256').update(key).digest('hex').slice(0, 8);
  return ['v1', id, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

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
    await createMetabaseIntegration(first);
    for (let i = 0; i < 30; i++) await addMetabaseConnection(first, metabase.url, 'mb_rotate=', { connectionId: `c${i}` });
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

  test('credentials are bound to their row; rows written before stay readable and reencrypt rewrites them', async () => {
    const key = randomBytes(32).toString('hex');
    const p = await startTestPlatform({ env: { SWITCHYARD_ENCRYPTION_KEY: key }, runWorker: false });
    platforms.push(p);
    const { db, box } = p.platform.deps;
    metabase ??= await startMetabaseFake({ apiKey: 'mb_rotate=' });
    await createMetabaseIntegration(p);
    for (const id of ['bound-a', 'bound-b']) await addMetabaseConnection(p, metabase.url, 'mb_rotate=', { connectionId: id });
    const rowOf = async (id: string) =>
      (await db.query<{ id: number; v: string }>('SELECT id, credentials_enc AS v FROM connections WHERE connection_id = $1', [id])).rows[0]!;
    const a = await rowOf('bound-a');
    const b = await rowOf('bound-b');

    // a's sealed credentials copied into b's row do not decrypt there.
    await db.query('UPDATE connections SET credentials_enc = $2 WHERE id = $1', [b.id, a.v]);
    await assert.rejects(getConnectionByPk(db, box, b.id), /unable to authenticate data/);
    await db.query('UPDATE connections SET credentials_enc = $2 WHERE id = $1', [b.id, b.v]);
    assert.equal((await getConnectionByPk(db, box, b.id))?.credentials.type, 'API_KEY');

    // A row written before the binding (v1, no AAD) still reads, is stale, and reencrypt rewrites it.
    await db.query('UPDATE connections SET credentials_enc = $2 WHERE id = $1', [a.id, sealV1(key, JSON.stringify({ type: 'API_KEY', apiKey: 'mb_rotate=' }))]);
    const read = async () => ((await (await p.api('/connections/bound-a?provider_config_key=metabase')).json()) as Json).credentials?.apiKey as unknown;
    assert.equal(await read(), 'mb_rotate=');
    assert.equal(await countStale(db, box), 1);
    const report = await reencryptAll(db, box);
    assert.equal(report.byColumn['connections.credentials_enc'], 1);
    assert.match((await rowOf('bound-a')).v, /^v2:/);
    assert.equal(await countStale(db, box), 0);
    assert.equal(await read(), 'mb_rotate=');
  });
});
