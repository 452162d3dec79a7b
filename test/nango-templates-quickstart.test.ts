import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { startTestPlatform, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("Nango's provider templates and quickstart integrations, as Switchyard can offer them", () => {
  let t: TestPlatform;
  let nango: Nango;

  before(async () => {
    t = await startTestPlatform({ runWorker: false });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
  });
  after(async () => {
    await t?.stop();
  });

  test('getProviderTemplates lists our pre-built syncs and actions of the provider in Nango’s function shape', async () => {
    const { data } = (await nango.getProviderTemplates({ provider: 'metabase' } as never)) as Json;
    const users = (data as Json[]).find((f) => f.name === 'users')!;
    assert.equal(users.type, 'sync');
    assert.deepEqual(users.returns, ['User']);
    assert.equal(typeof users.runs, 'string');
    assert.equal(typeof users.auto_start, 'boolean');
    assert.equal(typeof users.track_deletes, 'boolean');
    assert.ok(users.json_schema.definitions.User, 'the model as JSON Schema');
    const create = (data as Json[]).find((f) => f.name === 'create-user')!;
    assert.equal(create.type, 'action');
    assert.ok(create.json_schema.definitions[create.input], 'the input as JSON Schema');
    assert.deepEqual(((await nango.getProviderTemplates({ provider: 'airtable' } as never)) as Json).data, [], 'a provider without pre-built scripts');
    const unknown = await t.api('/providers/no-such-provider/templates');
    assert.equal(unknown.status, 400);
    assert.equal(((await unknown.json()) as Json).error.code, 'unknown_provider');
  });

  test('createQuickstartIntegration creates an integration that needs no developer app, and refuses OAuth 2 with a clear 400', async () => {
    const created = (await nango.createQuickstartIntegration({ unique_key: 'mb-quick', provider: 'metabase', display_name: 'Quick' } as never)) as Json;
    assert.equal(created.data.length, 1);
    assert.equal(created.data[0].unique_key, 'mb-quick');
    assert.equal(created.data[0].provider, 'metabase');
    assert.equal(((await nango.getIntegration({ uniqueKey: 'mb-quick' } as never)) as Json).data.display_name, 'Quick');

    const oauth = await t.api('/integrations/quickstart', { method: 'POST', json: { unique_key: 'at-quick', provider: 'airtable' } });
    const body = (await oauth.json()) as Json;
    assert.equal(oauth.status, 400, JSON.stringify(body));
    assert.equal(body.error.code, 'quickstart_unavailable');
    assert.match(body.error.message, /POST \/integrations/);
    const again = await t.api('/integrations/quickstart', { method: 'POST', json: { unique_key: 'mb-quick', provider: 'metabase' } });
    assert.equal(again.status, 400);
    assert.deepEqual(((await again.json()) as Json).error.errors[0].path, ['unique_key']);
    const extra = await t.api('/integrations/quickstart', { method: 'POST', json: { unique_key: 'x', provider: 'metabase', credentials: {} } });
    assert.equal(extra.status, 400);
  });
});
