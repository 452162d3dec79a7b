/**
 * Connection-config keys renamed to Nango's names (issue 30 item 3): a connection stored before the
 * rename (Metabase's `domain`, now `hostname`; …) is carried over by the migration
 * lib/db/migrations/022_catalog_connection_config_keys.sql, so it keeps working through the proxy.
 * The migration is run as a start runs it (lib/db/migrate.ts) on rows written in the old shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../lib/db/migrate.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, createMetabaseIntegration, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

const MIGRATION = '022_catalog_connection_config_keys.sql';
const NAMES_MIGRATION = '025_catalog_names_as_nango.sql';
const TEAMWORK_MIGRATION = '031_catalog_connection_config_keys_teamwork.sql';
const API_KEY = 'key-renames-0123456789';

describe('connection-config keys renamed to Nango’s', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    metabase = await startMetabaseFake({ apiKey: API_KEY });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
  });

  /** Applies the migration again, as the next start would to rows written by the previous version. */
  async function rerunMigration(): Promise<void> {
    await t.platform.deps.db.query('DELETE FROM schema_migrations WHERE name = $1', [MIGRATION]);
    assert.deepEqual(await migrate(t.platform.deps.db), [MIGRATION]);
  }

  test('a Metabase connection stored with `domain` answers through the proxy after the migration', async () => {
    const db = t.platform.deps.db;
    await createMetabaseIntegration(t);
    await addMetabaseConnection(t, metabase.url, API_KEY, { connectionId: 'old-shape' });
    await db.query(`UPDATE connections SET connection_config = jsonb_build_object('domain', $1::text) WHERE connection_id = 'old-shape'`, [metabase.url]);
    const proxy = () => t.api('/proxy/api/user/current', { headers: { 'connection-id': 'old-shape', 'provider-config-key': 'metabase' } });
    const before = await waitFor('the old shape to be read', async () => {
      const res = await proxy();
      return res.status === 400 ? ((await res.json()) as { error: { code: string; message: string } }).error : undefined;
    });
    assert.equal(before.code, 'missing_connection_config');
    assert.match(before.message, /connection_config\.hostname/);

    await rerunMigration();
    const { rows } = await db.query(`SELECT connection_config FROM connections WHERE connection_id = 'old-shape'`);
    assert.deepEqual(rows[0].connection_config, { hostname: metabase.url });
    await waitFor('the proxied call to reach Metabase', async () => (await proxy()).status === 200);
  });

  test('every renamed key moves; Freshsales gains its /crm/sales path; other providers and new-shape rows are untouched', async () => {
    const db = t.platform.deps.db;
    const envId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const stored: [provider: string, before: Record<string, string>, after: Record<string, string>][] = [
      ['woocommerce', { domain: 'shop.example.com' }, { storeURL: 'shop.example.com' }],
      ['auth0', { domain: 'acme.us.auth0.com' }, { hostname: 'acme.us.auth0.com' }],
      ['datadog', { site: 'datadoghq.eu' }, { siteParameter: 'datadoghq.eu' }],
      ['copper', { email: 'owner@example.com' }, { userEmail: 'owner@example.com' }],
      ['freshsales', { domain: 'acme.myfreshworks.com' }, { bundleAlias: 'acme.myfreshworks.com/crm/sales' }],
      ['okta', { domain: 'acme.okta.com' }, { domain: 'acme.okta.com' }],
      ['gong', { domain: 'api.gong.io' }, { domain: 'api.gong.io' }],
    ];
    const already = { hostname: 'new.example.com', domain: 'kept.example.com' };
    const ids: number[] = [];
    for (const [i, [provider, config]] of [...stored, ['metabase', already] as const].entries()) {
      const integration = await db.query<{ id: number }>(`INSERT INTO integrations (environment_id, unique_key, provider) VALUES ($1, $2, $3) RETURNING id`, [
        envId,
        `renamed-${i}`,
        provider,
      ]);
      const connection = await db.query<{ id: number }>(
        `INSERT INTO connections (environment_id, integration_id, connection_id, auth_mode, credentials_enc, connection_config)
         VALUES ($1, $2, 'c', 'API_KEY', 'unused', $3) RETURNING id`,
        [envId, integration.rows[0]!.id, config],
      );
      ids.push(connection.rows[0]!.id);
    }

    await rerunMigration();
    const { rows } = await db.query<{ id: number; connection_config: Record<string, string> }>(
      'SELECT id, connection_config FROM connections WHERE id = ANY($1)',
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r.connection_config]));
    assert.deepEqual(
      ids.map((id) => byId.get(id)),
      [...stored.map(([, , after]) => after), already],
    );
  });

  test("an integration of a name that now means Nango's API moves, with its connections, to the name of what it meant", async () => {
    const db = t.platform.deps.db;
    const envId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const moved: [before: string, after: string][] = [
      ['auth0', 'auth0-cc'],
      ['bigcommerce', 'bigcommerce-api-key'],
      ['contentful', 'contentful-pat'],
      ['copper', 'copper-api-key'],
      ['datadog', 'datadog-basic'],
      ['klaviyo', 'klaviyo-oauth'],
      ['personio', 'personio-v2'],
      ['segment', 'segment-api-key'],
      ['sentry', 'sentry-oauth-app'],
      ['trello', 'trello-api-key'],
      ['github', 'github'],
      // A connection of the new meaning's auth mode: made under the new meaning, it stays.
      ['auth0', 'auth0'],
    ];
    const ids: number[] = [];
    for (const [provider] of moved) {
      const { rows } = await db.query<{ id: number }>(`INSERT INTO integrations (environment_id, unique_key, provider) VALUES ($1, $2, $3) RETURNING id`, [
        envId,
        `old-meaning-${ids.length}-${provider}`,
        provider,
      ]);
      ids.push(rows[0]!.id);
    }
    const connect = (integrationId: number, authMode: string, config: Record<string, string>) =>
      db.query(
        `INSERT INTO connections (environment_id, integration_id, connection_id, auth_mode, credentials_enc, connection_config)
         VALUES ($1, $2, 'c', $3, 'unused', $4)`,
        [envId, integrationId, authMode, config],
      );
    await connect(ids[0]!, 'OAUTH2_CC', { hostname: 'acme.us.auth0.com' });
    await connect(ids.at(-1)!, 'OAUTH2', { subdomain: 'acme' });

    await db.query('DELETE FROM schema_migrations WHERE name = $1', [NAMES_MIGRATION]);
    assert.deepEqual(await migrate(db), [NAMES_MIGRATION]);
    const { rows } = await db.query<{ id: number; provider: string }>('SELECT id, provider FROM integrations WHERE id = ANY($1)', [ids]);
    const byId = new Map(rows.map((r) => [r.id, r.provider]));
    assert.deepEqual(
      ids.map((id) => byId.get(id)),
      moved.map(([, after]) => after),
    );
    const auth0 = await db.query(`SELECT connection_config FROM connections WHERE integration_id = $1`, [ids[0]]);
    assert.deepEqual(auth0.rows[0].connection_config, { hostname: 'acme.us.auth0.com' }, 'the config auth0-cc reads');
  });

  test("a Teamwork.com connection's typed site URL moves to the key Nango keeps the token response's address under", async () => {
    const db = t.platform.deps.db;
    const envId = (await db.query<{ id: number }>(`SELECT id FROM environments WHERE name = 'dev'`)).rows[0]!.id;
    const integration = await db.query<{ id: number }>(
      `INSERT INTO integrations (environment_id, unique_key, provider) VALUES ($1, 'teamwork-old', 'teamwork') RETURNING id`,
      [envId],
    );
    const rows: [before: Record<string, string>, after: Record<string, string>][] = [
      [{ siteUrl: 'https://acme.teamwork.com' }, { 'installation.apiEndPoint': 'https://acme.teamwork.com' }],
      [
        { siteUrl: 'https://typed.teamwork.com', 'installation.apiEndPoint': 'https://acme.eu.teamwork.com/' },
        { siteUrl: 'https://typed.teamwork.com', 'installation.apiEndPoint': 'https://acme.eu.teamwork.com/' },
      ],
    ];
    const ids: number[] = [];
    for (const [i, [config]] of rows.entries()) {
      const { rows: inserted } = await db.query<{ id: number }>(
        `INSERT INTO connections (environment_id, integration_id, connection_id, auth_mode, credentials_enc, connection_config)
         VALUES ($1, $2, $3, 'OAUTH2', 'unused', $4) RETURNING id`,
        [envId, integration.rows[0]!.id, `tw-${i}`, config],
      );
      ids.push(inserted[0]!.id);
    }
    await db.query('DELETE FROM schema_migrations WHERE name = $1', [TEAMWORK_MIGRATION]);
    assert.deepEqual(await migrate(db), [TEAMWORK_MIGRATION]);
    const { rows: after } = await db.query<{ id: number; connection_config: Record<string, string> }>(
      'SELECT id, connection_config FROM connections WHERE id = ANY($1)',
      [ids],
    );
    const byId = new Map(after.map((r) => [r.id, r.connection_config]));
    assert.deepEqual(
      ids.map((id) => byId.get(id)),
      rows.map(([, a]) => a),
    );
  });
});
