/**
 * What Nango's public function library needs at run time beyond types (issue 29, item 3), end to
 * end on the platform (real Temporal and Postgres, the Metabase fake): functions written as Nango
 * 0.71 allows, imported from `nango`: an action without `endpoint` and a sync without `endpoints`
 * deploy, are listed by name on the Endpoints tab, are activated by `deploy --activate` or the tab,
 * and are then called as Nango calls them (POST /action/trigger and tools by name; records by
 * model); a sync's `nango.log` lines are readable through the API (GET /logs/scripts) and on the
 * run's dashboard page; the modules Nango's CLI allows (url, crypto; soap, unzipper, botbuilder named
 * but refused when used; nango/experimental refused at compile); getIntegration and uncontrolledFetch.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Nango } from '@nangohq/node';
import { bundle, manifestOf, typecheck } from '../cli/build.js';
import { findScripts } from '../cli/project.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, dashboardSignIn, startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ZOD = path.join(ROOT, 'node_modules', 'zod');
const API_KEY = 'mb_nango_runtime=';
const PCK = 'people-by-name';
const CONN = 'acme';

const SCRIPTS: Record<string, string> = {
  'actions/whoami.ts': `import { z } from 'zod';
import { createAction } from 'nango';

export default createAction({
  description: 'One user by id; no endpoint: called by name',
  input: z.object({ id: z.number() }),
  output: z.object({ email: z.string() }),
  exec: async (nango, input) => {
    const res = await nango.get<{ email: string }>({ endpoint: \`/api/user/\${input.id}\` });
    return { email: res.data.email };
  },
});
`,
  'syncs/people.ts': `import { z } from 'zod';
import { createSync } from 'nango';

export default createSync({
  description: 'Every user; no endpoints: its records are read by model',
  frequency: 'every day',
  autoStart: true,
  models: { Person: z.object({ id: z.string(), email: z.string() }) },
  exec: async (nango) => {
    const res = await nango.get<{ data: { id: number; email: string }[] }>({ endpoint: '/api/user', params: 'status=all' });
    await nango.batchSave(res.data.data.map((u) => ({ id: String(u.id), email: u.email })), 'Person');
    // Read back as Nango's listRecords gives them: this connection's records, with their metadata.
    let listed = 0;
    for await (const record of nango.listRecords('Person')) if (record.email && '_nango_metadata' in record) listed++;
    await nango.log(\`saved \${res.data.data.length} people, \${listed} listed\`);
    await nango.log('a warning line', { level: 'warn' });
  },
});
`,
};

const LATER: Record<string, string> = {
  'actions/ping.ts': `import { z } from 'zod';
import { createAction } from 'nango';

export default createAction({
  description: 'Answers pong; deployed later with --activate',
  input: z.object({}),
  output: z.object({ pong: z.boolean() }),
  exec: async () => ({ pong: true }),
});
`,
};

// Type-checking these imports is the type surface's part (issue 29, item 1): these are bundled and run unchecked.
const MODULES: Record<string, string> = {
  'actions/digests.ts': `import { z } from 'zod';
import { createAction } from 'nango';
import { createHash, createHmac, randomUUID, randomBytes, timingSafeEqual } from 'crypto';
import crypto from 'node:crypto';
import { URLSearchParams } from 'url';
import { URL as NodeURL } from 'node:url';

export default createAction({
  description: 'The crypto and url of Nango functions, in the sandbox',
  input: z.object({ text: z.string() }),
  output: z.record(z.string(), z.unknown()),
  exec: async (nango, input) => {
    const kDate = crypto.createHmac('sha256', 'AWS4key').update('20260101').digest();
    const r = randomBytes(16);
    let refused = '';
    try {
      createHash('whirlpool-9');
    } catch (err) {
      refused = String(err);
    }
    return {
      sha256: createHash('sha256').update(input.text).digest('hex'),
      md5: createHash('md5').update(input.text.toLowerCase(), 'utf8').digest('base64'),
      sha1Parts: createHash('sha1').update('ab').update('cd').digest('base64url'),
      hmacChain: createHmac('sha256', Uint8Array.from(kDate)).update('us-east-1').digest('hex'),
      uuid: randomUUID(),
      randomLength: r.length,
      distinct: !timingSafeEqual(r, randomBytes(16)) && timingSafeEqual(r, r),
      query: new URLSearchParams({ a: '1', b: 'x y' }).toString(),
      host: new NodeURL('https://example.com:8443/p?q=1').host,
      refused,
    };
  },
});
`,
  'actions/needs-node.ts': `import { z } from 'zod';
import { createAction } from 'nango';
import soap from 'soap';
import { security } from 'soap';
import unzipper from 'unzipper';

export default createAction({
  description: 'Modules the sandbox names but cannot run',
  input: z.object({ use: z.enum(['soap', 'security', 'unzipper']) }),
  output: z.object({ ok: z.boolean() }),
  exec: async (nango, input) => {
    if (input.use === 'soap') await soap.createClientAsync('https://example.com/service?wsdl', {});
    if (input.use === 'security') new security.WSSecurity('user', 'password');
    if (input.use === 'unzipper') await unzipper.Open.buffer(new Uint8Array(4));
    return { ok: true };
  },
});
`,
  'actions/reach-out.ts': `import { z } from 'zod';
import { createAction } from 'nango';

export default createAction({
  description: 'getIntegration, and uncontrolledFetch with and without headers of its own',
  input: z.object({ url: z.string(), withKey: z.boolean() }),
  output: z.record(z.string(), z.unknown()),
  exec: async (nango, input) => {
    const withCredentials = await nango.getIntegration({ include: ['credentials', 'webhook'] });
    const plain = await nango.getIntegration();
    const token = await nango.getToken();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (input.withKey && typeof token === 'object' && token.type === 'API_KEY') headers['x-api-key'] = token.apiKey;
    const res = await nango.uncontrolledFetch({ url: new URL(input.url), method: 'GET', headers });
    return {
      integration: { unique_key: plain.unique_key, provider: plain.provider, keys: Object.keys(plain).sort() },
      included: { credentials: 'credentials' in withCredentials, webhook: typeof withCredentials.webhook_url },
      status: res.status,
      ok: res.ok,
      type: res.headers.get('Content-Type'),
      body: res.status === 200 ? await res.json() : await res.text(),
    };
  },
});
`,
};

describe('Nango functions without endpoints, and their log lines, on the platform', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let nango: Nango;
  let work: string;

  /** Type-checks, bundles and deploys the project's files, as `switchyard compile` + `deploy` do. */
  const deploy = async (files: Record<string, string>, activate: boolean, typechecked = true) => {
    for (const [file, code] of Object.entries(files)) {
      await mkdir(path.join(work, PCK, path.dirname(file)), { recursive: true });
      await writeFile(path.join(work, PCK, file), code);
    }
    const found = await findScripts(work);
    if (typechecked) {
      await typecheck(
        work,
        found.map((s) => s.file),
        ZOD,
      );
    }
    const scripts = [];
    for (const s of found) {
      const code = await bundle(work, s);
      scripts.push({ integration: s.integration, name: s.name, bundle: code, manifest: await manifestOf(work, s, code) });
    }
    const res = await t.api('/scripts/deploy', { method: 'POST', json: { scripts, activate, cli_version: '0.67.0' } });
    assert.equal(res.status, 200, await res.clone().text());
  };
  const endpoints = async () => ((await (await t.api(`/integrations/${PCK}/endpoints`)).json()) as Json).data as Json[];
  const trigger = (name: string, input: unknown) =>
    t.api('/action/trigger', { method: 'POST', headers: { 'connection-id': CONN, 'provider-config-key': PCK }, json: { action_name: name, input } });

  before(async () => {
    t = await startTestPlatform();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    for (let i = 0; i < 3; i++) metabase.addUser({ email: `person${i}@example.com`, first_name: `P${i}`, last_name: 'X' });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
    assert.equal((await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: PCK } })).status, 200);
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'nango-runtime-'));
    await mkdir(path.join(work, 'node_modules'), { recursive: true });
    await symlink(ZOD, path.join(work, 'node_modules', 'zod'), 'dir');
    await deploy(SCRIPTS, false);
    await addMetabaseConnection(t, metabase.url, API_KEY, { providerConfigKey: PCK, connectionId: CONN });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('functions without endpoints are listed by name, deactivated until activated, then called by name', async () => {
    assert.deepEqual(
      (await endpoints())
        .filter((e) => e.script === 'whoami' || e.script === 'people')
        .map((e) => `${e.method} ${e.path} ${e.script} ${e.type} ${e.enabled}`)
        .sort(),
      ['FUNCTION people people sync false', 'FUNCTION whoami whoami action false'],
    );
    const refused = await trigger('whoami', { id: metabase.state.users[0]!.id });
    assert.equal(refused.status, 404);
    assert.equal(((await refused.json()) as Json).error.code, 'endpoint_not_enabled');

    const { cookie } = await dashboardSignIn(t, t.devKey, 'dev');
    const tab = await (await fetch(`${t.url}/dashboard/dev/integrations/${PCK}/endpoints`, { headers: { cookie } })).text();
    assert.match(tab, /Activate whoami/);
    assert.match(tab, /no endpoint: called by name/);

    const patched = await t.api(`/integrations/${PCK}/endpoints`, {
      method: 'PATCH',
      json: { endpoints: [{ method: 'FUNCTION', path: 'whoami', enabled: true }] },
    });
    assert.equal(patched.status, 200, await patched.clone().text());
    const user = metabase.state.users.find((u) => u.type === 'personal')!;
    const ok = await trigger('whoami', { id: user.id });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.deepEqual(await ok.json(), { email: user.email });
    const viaTool = await t.api(`/connections/${CONN}/tools/whoami/calls?provider_config_key=${PCK}`, { method: 'POST', json: { input: { id: user.id } } });
    assert.equal(viaTool.status, 200, await viaTool.clone().text());
    assert.deepEqual(await viaTool.json(), { email: user.email });

    const unknown = await t.api(`/integrations/${PCK}/endpoints`, {
      method: 'PATCH',
      json: { endpoints: [{ method: 'FUNCTION', path: 'nope', enabled: true }] },
    });
    assert.equal(unknown.status, 400);
    assert.deepEqual(((await unknown.json()) as Json).error.errors[0].path, ['endpoints', 0]);
  });

  test('deploy --activate activates a new function without endpoint; a sync without endpoints runs and its records are read by model', async () => {
    await deploy(LATER, true);
    assert.equal((await endpoints()).find((e) => e.script === 'ping')?.enabled, true);
    assert.equal((await endpoints()).find((e) => e.script === 'people')?.enabled, false, 'activate turns on only what is new');
    const pong = await trigger('ping', {});
    assert.deepEqual(await pong.json(), { pong: true });

    const patched = await t.api(`/integrations/${PCK}/endpoints`, {
      method: 'PATCH',
      json: { endpoints: [{ method: 'FUNCTION', path: 'people', enabled: true }] },
    });
    assert.equal(patched.status, 200);
    await nango.triggerSync(PCK, ['people'], CONN);
    const records = await waitFor('the sync to save its records', async () => {
      const page = await nango.listRecords<{ id: string; email: string }>({ providerConfigKey: PCK, connectionId: CONN, model: 'Person' });
      return page.records.length >= 3 ? page.records : null;
    });
    const personal = metabase.state.users.filter((u) => u.type === 'personal');
    assert.deepEqual(records.map((r) => r.email).sort(), personal.map((u) => u.email).sort());

    // Its nango.log lines: through the API, and on the run's page in the dashboard.
    const lines = await waitFor('the run to finish', async () => {
      const res = await t.api(`/logs/scripts?integration=${PCK}&connection_id=${CONN}&script=people`);
      assert.equal(res.status, 200, await res.clone().text());
      const data = ((await res.json()) as Json).data as Json[];
      return data.length >= 2 ? data : null;
    });
    assert.deepEqual(
      lines.map((l) => `${l.kind} ${l.script} ${l.level} ${l.message}`),
      [`sync people info saved ${personal.length} people, ${personal.length} listed`, 'sync people warn a warning line'],
    );
    const { cookie } = await dashboardSignIn(t, t.devKey, 'dev');
    const page = await (await fetch(`${t.url}/dashboard/dev/runs/view?kind=sync&id=${encodeURIComponent(lines[0]!.run_id)}`, { headers: { cookie } })).text();
    assert.match(page, new RegExp(`saved ${personal.length} people`));
    assert.match(page, /a warning line/);
    const refused = await t.api('/logs/scripts?kind=webhook');
    assert.equal(refused.status, 400);
    assert.deepEqual(((await refused.json()) as Json).error.errors[0].path, ['kind']);
  });

  test('the modules Nango allows: crypto and url work as in Node; soap and unzipper fail when used, naming the module and the call', async () => {
    await deploy(MODULES, true, false);
    const text = 'Grace.Hopper@Example.com';
    const res = await trigger('digests', { text });
    assert.equal(res.status, 200, await res.clone().text());
    const out = (await res.json()) as Json;
    const kDate = createHmac('sha256', 'AWS4key').update('20260101').digest();
    assert.deepEqual(
      { ...out, uuid: undefined },
      {
        sha256: createHash('sha256').update(text).digest('hex'),
        md5: createHash('md5').update(text.toLowerCase()).digest('base64'),
        sha1Parts: createHash('sha1').update('abcd').digest('base64url'),
        hmacChain: createHmac('sha256', kDate).update('us-east-1').digest('hex'),
        uuid: undefined,
        randomLength: 16,
        distinct: true,
        query: 'a=1&b=x+y',
        host: 'example.com:8443',
        refused:
          'Error: Digest method not supported: whirlpool-9 (the sandbox offers md5, sha1, sha224, sha256, sha384, sha512, sha512-224, sha512-256, sha3-224, sha3-256, sha3-384, sha3-512)',
      },
    );
    assert.match(out.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    for (const [use, call] of [
      ['soap', 'soap.createClientAsync'],
      ['security', 'soap.security.WSSecurity'],
      ['unzipper', 'unzipper.Open.buffer'],
    ] as const) {
      const failed = await trigger('needs-node', { use });
      assert.equal(failed.status, 500);
      const error = ((await failed.json()) as Json).error;
      assert.equal(error.code, 'action_script_failure');
      assert.match(
        error.message,
        new RegExp(`${call.replace(/\./g, '\\.')}: the module '${use === 'security' ? 'soap' : use}' is not available in Switchyard's sandbox`),
      );
    }
  });

  test("nango/experimental's createFunction bundles and is refused when the bundle loads, naming it", async () => {
    const file = path.join(work, 'experimental', 'actions', 'made-with-create-function.ts');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `import { createFunction } from 'nango/experimental';\nexport default createFunction({ description: 'x' });\n`);
    const script = (await findScripts(work)).find((s) => s.file === file)!;
    const code = await bundle(work, script);
    await assert.rejects(manifestOf(work, script, code), /createFunction \(from 'nango\/experimental'\) is not supported by Switchyard/);
    await rm(path.join(work, 'experimental'), { recursive: true });
  });

  test("uncontrolledFetch goes through the address policy without the connection credentials; getIntegration answers Nango's shape", async () => {
    const current = `${metabase.url}/api/user/current`;
    const without = await trigger('reach-out', { url: current, withKey: false });
    assert.equal(without.status, 200, await without.clone().text());
    const out = (await without.json()) as Json;
    assert.deepEqual(out.integration, {
      unique_key: PCK,
      provider: 'metabase',
      keys: ['created_at', 'display_name', 'forward_webhooks', 'integration_config', 'logo', 'provider', 'unique_key', 'updated_at'],
    });
    assert.deepEqual(out.included, { credentials: true, webhook: 'string' });
    // The connection's API key is not added: the provider refuses the call.
    assert.deepEqual({ status: out.status, ok: out.ok, body: out.body }, { status: 401, ok: false, body: 'Unauthenticated' });
    const sent = metabase.requests.filter((r) => r.path === '/api/user/current');
    assert.equal(sent.at(-1)?.headers['x-api-key'], undefined);

    // With the key the script sets itself.
    const withKey = (await (await trigger('reach-out', { url: current, withKey: true })).json()) as Json;
    assert.equal(withKey.status, 200);
    assert.match(withKey.type, /json/);
    assert.equal(typeof withKey.body.id, 'number');
    const logged = ((await (await t.api(`/logs?connection_id=${CONN}&kind=action`)).json()) as Json).data as Json[];
    assert.ok(logged.some((l) => l.url.endsWith('/api/user/current') && l.status === 200));

    // An address the policy refuses: Nango's ActionError url_not_allowed.
    const refused = await trigger('reach-out', { url: 'http://169.254.169.254/latest/meta-data/', withKey: false });
    assert.equal(refused.status, 500);
    const error = ((await refused.json()) as Json).error;
    assert.equal(error.code, 'action_script_runtime_error');
    assert.deepEqual(error.payload, { code: 'url_not_allowed', message: 'This URL is not allowed by server configuration.' });
  });
});
