/**
 * The seed's sample application, end to end through the public API against the Slack and Google
 * Drive fakes: Slack OAuth, the users sync (paged, without bots and deleted users) and messages
 * (with Slack's ok:false errors); a Drive folder tree synced from the connection's metadata, and
 * documents fetched through the proxy (a 20 MB file streamed, a Google Doc exported).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Nango } from '@nangohq/node';
import { deterministicSha256, GOOGLE_DOC_MIME, startGoogleDriveFake, startSlackFake, type GoogleDriveFake, type SlackFake } from './fakes/index.js';
import { startTestPlatform, waitFor, type TestPlatform } from './harness.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const DRIVE_TOKEN = 'ya29.drive-test-token';
const MB = 1024 * 1024;
const FILE_SIZE = 20 * MB;

async function enableAll(t: TestPlatform, key: string): Promise<void> {
  const tab = (await (await t.api(`/integrations/${key}/endpoints`)).json()) as Json;
  const endpoints = tab.data.map((e: Json) => ({ method: e.method, path: e.path, enabled: true }));
  assert.equal((await t.api(`/integrations/${key}/endpoints`, { method: 'PATCH', json: { endpoints } })).status, 200);
}

describe('Slack and Google Drive (the sample application)', () => {
  let t: TestPlatform;
  let slack: SlackFake;
  let drive: GoogleDriveFake;
  let nango: Nango;
  let slackConn = '';

  before(async () => {
    t = await startTestPlatform();
    slack = await startSlackFake({ token: 'xoxb-seeded', oauth: { autoApprove: true } });
    drive = await startGoogleDriveFake({ token: DRIVE_TOKEN });
    nango = new Nango({ secretKey: t.devKey, host: t.url });
  });
  after(async () => {
    await t?.stop();
    await slack?.close();
    await drive?.close();
  });

  describe('Slack', () => {
    test('OAuth v2 connect; the users sync pages 200 at a time and skips bots and deleted users', async () => {
      for (let i = 0; i < 250; i++)
        slack.addMember({ id: `U1${String(i).padStart(8, '0')}`, name: `member${i}`, realName: `Member ${i}`, email: `m${i}@fake-team.example` });
      const created = await t.api('/integrations', {
        method: 'POST',
        json: {
          provider: 'slack',
          unique_key: 'slack',
          credentials: { type: 'OAUTH2', client_id: 'slack-client-id', client_secret: 'slack-client-secret', scopes: 'users:read,users:read.email,chat:write' },
          integration_config: {
            authorization_url: `${slack.url}/oauth/v2/authorize`,
            token_url: `${slack.url}/api/oauth.v2.access`,
            base_url: `${slack.url}/api`,
          },
        },
      });
      assert.equal(created.status, 200, await created.clone().text());
      await enableAll(t, 'slack');

      const session = ((await (await t.api('/connect/sessions', { method: 'POST', json: { end_user: { id: 'slack-user' } } })).json()) as Json).data.token;
      const start = await fetch(`${t.url}/oauth/connect/slack?connect_session_token=${session}`, { redirect: 'manual' });
      const authorize = new URL(start.headers.get('location')!);
      assert.equal(authorize.searchParams.get('scope'), 'users:read,users:read.email,chat:write');
      const approved = await fetch(authorize, { redirect: 'manual' });
      const done = await fetch(approved.headers.get('location')!);
      assert.equal(done.status, 200, await done.clone().text());
      slackConn = ((await (await t.api('/connections?integrationId=slack')).json()) as Json).connections[0].connection_id;
      const connection = (await (await t.api(`/connections/${slackConn}?provider_config_key=slack`)).json()) as Json;
      assert.equal(connection.connection_config.bot_user_id, 'U0FAKEBOT1');
      assert.match(connection.credentials.access_token, /^xoxb-/);

      const status = await waitFor('the first users run', async () => {
        const s = ((await nango.syncStatus('slack', ['users'], slackConn)) as Json).syncs[0];
        return s?.latestExecutionStatus === 'SUCCESS' ? s : null;
      });
      assert.equal(status.recordCount.SlackUser, 253);
      const all: Json[] = [];
      let cursor: string | undefined;
      do {
        const page = (await nango.listRecords({
          providerConfigKey: 'slack',
          connectionId: slackConn,
          model: 'SlackUser',
          cursor,
          limit: 100,
        } as never)) as Json;
        all.push(...page.records);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      assert.equal(all.length, 253);
      const ids = new Set(all.map((u) => u.id));
      assert.ok(!ids.has('U0DAVE0004'), 'deleted users are skipped');
      assert.ok(!ids.has('U0FAKEBOT1'), 'bots are skipped');
      const alice = all.find((u) => u.id === 'U0ALICE001')!;
      assert.equal(alice.profile.email, 'alice@fake-team.example');
      assert.equal(alice.is_admin, true);
      assert.equal(JSON.parse(alice.raw_json).name, 'alice');
      const viaEndpoint = (await (await t.api('/users', { headers: { 'connection-id': slackConn, 'provider-config-key': 'slack' } })).json()) as Json;
      assert.equal(viaEndpoint.records.length, 100);

      const pages = slack.requests.filter((r) => r.path === '/api/users.list');
      assert.equal(pages.length, 2);
      assert.deepEqual(
        pages.map((p) => [p.query.limit, Boolean(p.query.cursor)]),
        [
          ['200', false],
          ['200', true],
        ],
      );
    });

    test('send-message posts; Slack ok:false answers become action errors with the Slack code', async () => {
      const headers = { 'connection-id': slackConn, 'provider-config-key': 'slack' };
      const res = await t.api('/send-message', { method: 'POST', headers, json: { channel: 'C0GENERAL1', text: 'Hello from Switchyard' } });
      assert.equal(res.status, 200, await res.clone().text());
      const out = (await res.json()) as Json;
      assert.equal(out.ok, true);
      assert.equal(out.channel, 'C0GENERAL1');
      assert.equal(out.message, 'Hello from Switchyard');
      assert.match(out.ts, /^\d+\.\d{6}$/);
      assert.equal(JSON.parse(out.raw_json).ok, true);
      assert.equal(slack.state.messages.at(-1)?.text, 'Hello from Switchyard');

      const viaNode = (await nango.triggerAction('slack', slackConn, 'send-message', { channel: '#random', text: 'again' })) as Json;
      assert.equal(viaNode.channel, 'C0RANDOM01');

      for (const [channel, code] of [
        ['C0PRIVATE1', 'not_in_channel'],
        ['C0NOWHERE1', 'channel_not_found'],
      ]) {
        const refused = await t.api('/send-message', { method: 'POST', headers, json: { channel, text: 'nope' } });
        assert.equal(refused.status, 500);
        const error = ((await refused.json()) as Json).error;
        assert.equal(error.code, 'action_script_runtime_error');
        assert.equal(error.payload.code, code);
        assert.equal(error.payload.message, `Slack refused chat.postMessage: ${code}`);
      }
      assert.equal(slack.state.messages.length, 2);
    });
  });

  describe('Google Drive', () => {
    const tree: Record<string, string> = {};
    let big = '';
    let doc = '';
    const headers = { 'connection-id': 'drive-1', 'provider-config-key': 'google-drive' };

    before(async () => {
      const projects = drive.addFolder('Projects');
      const archive = drive.addFolder('Archive', projects.id);
      const deep = drive.addFolder('Deep', archive.id);
      const other = drive.addFolder('Other');
      tree.projects = projects.id;
      tree.other = other.id;
      drive.addFile({ name: 'plan.txt', mimeType: 'text/plain', parentId: projects.id, content: 'the plan' });
      doc = drive.addFile({ name: 'Spec', mimeType: GOOGLE_DOC_MIME, parentId: projects.id, content: 'Hello doc' }).id;
      big = drive.addFile({ name: 'big.bin', parentId: projects.id, generatedSize: FILE_SIZE }).id;
      for (let i = 0; i < 120; i++) drive.addFile({ name: `old-${i}.txt`, mimeType: 'text/plain', parentId: archive.id, content: `old ${i}` });
      drive.addFile({ name: 'bottom.txt', mimeType: 'text/plain', parentId: deep.id, content: 'bottom' });
      drive.addFile({ name: 'binned.txt', mimeType: 'text/plain', parentId: projects.id, content: 'x', trashed: true });
      drive.addFile({ name: 'elsewhere.txt', mimeType: 'text/plain', parentId: other.id, content: 'x' });
      tree.loose = drive.addFile({ name: 'loose.pdf', mimeType: 'application/pdf', content: '%PDF-1.4' }).id;

      assert.equal(
        (
          await t.api('/integrations', {
            method: 'POST',
            json: { provider: 'google-drive', unique_key: 'google-drive', integration_config: { base_url: drive.url } },
          })
        ).status,
        200,
      );
      await enableAll(t, 'google-drive');
      const res = await t.api('/connections', {
        method: 'POST',
        json: { provider_config_key: 'google-drive', connection_id: 'drive-1', credentials: { type: 'OAUTH2', access_token: DRIVE_TOKEN } },
      });
      assert.equal(res.status, 201, await res.clone().text());
    });

    async function runAndWait(kind: 'start' | 'trigger', previous: string | null): Promise<Json> {
      const res = await t.api(`/sync/${kind}`, {
        method: 'POST',
        json: { syncs: ['documents'], provider_config_key: 'google-drive', connection_id: 'drive-1' },
      });
      assert.equal(res.status, 200, await res.clone().text());
      return waitFor('the documents run', async () => {
        const s = ((await nango.syncStatus('google-drive', ['documents'], 'drive-1')) as Json).syncs[0];
        return s?.finishedAt && s.finishedAt !== previous && s.latestExecutionStatus !== 'RUNNING' ? s : null;
      });
    }

    test('documents does not start by itself, and without metadata fails with a clear error', async () => {
      const idle = ((await nango.syncStatus('google-drive', ['documents'], 'drive-1')) as Json).syncs[0];
      assert.equal(idle.status, 'STOPPED');
      const failed = await runAndWait('start', null);
      assert.equal(failed.latestExecutionStatus, 'ERROR');
      assert.match(JSON.stringify(failed.lastError), /Metadata for files or folders is required/);
    });

    test('with metadata, the folder tree is walked recursively and the named files are added', async () => {
      const meta = await t.api('/connections/metadata', {
        method: 'POST',
        json: { connection_id: 'drive-1', provider_config_key: 'google-drive', metadata: { folders: [tree.projects], files: [tree.loose] } },
      });
      assert.equal(meta.status, 201, await meta.clone().text());
      const previous = ((await nango.syncStatus('google-drive', ['documents'], 'drive-1')) as Json).syncs[0].finishedAt;
      const s = await runAndWait('trigger', previous);
      assert.equal(s.latestExecutionStatus, 'SUCCESS', JSON.stringify(s.lastError));
      // plan.txt, Spec, big.bin, 120 in Archive, bottom.txt in Deep, loose.pdf; not folders, trash or Other.
      assert.equal(s.recordCount.Document, 125);
      const docs: Json[] = [];
      let cursor: string | undefined;
      do {
        const page = (await (await t.api(`/records?model=Document&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers })).json()) as Json;
        docs.push(...page.records);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      const titles = new Set(docs.map((d) => d.title));
      for (const name of ['plan.txt', 'Spec', 'big.bin', 'old-0.txt', 'old-119.txt', 'bottom.txt', 'loose.pdf']) assert.ok(titles.has(name), name);
      for (const name of ['Archive', 'Deep', 'binned.txt', 'elsewhere.txt']) assert.ok(!titles.has(name), name);
      const spec = docs.find((d) => d.title === 'Spec')!;
      assert.equal(spec.mimeType, GOOGLE_DOC_MIME);
      assert.match(spec.url, /^https:\/\/docs\.google\.com\/document\/d\//);
      assert.ok(Date.parse(spec.updatedAt));
      const archiveLists = drive.requests.filter((r) => r.path === '/drive/v3/files' && r.query.q?.includes(' in parents'));
      assert.ok(
        archiveLists.some((r) => r.query.pageToken),
        'the 120-file folder was read over two pages',
      );
      assert.ok(archiveLists.every((r) => r.query.pageSize === '100'));
    });

    test('fetch-document points at the proxy; a 20 MB file streams through /proxy in bounded memory', async (ctx) => {
      const descriptor = (await (await t.api(`/fetch-document?id=${big}`, { headers })).json()) as Json;
      assert.deepEqual(descriptor.proxy, {
        method: 'GET',
        path: `/drive/v3/files/${big}?alt=media&supportsAllDrives=true`,
        contentType: 'application/octet-stream',
        stripBom: false,
      });
      assert.equal(descriptor.size, FILE_SIZE);

      gc();
      const base = process.memoryUsage();
      const peak = { external: 0, arrayBuffers: 0 };
      const sample = () => {
        gc();
        const m = process.memoryUsage();
        peak.external = Math.max(peak.external, m.external - base.external);
        peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers - base.arrayBuffers);
      };
      const res = await t.api(`/proxy${descriptor.proxy.path}`, { headers });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-length'), String(FILE_SIZE));
      const hash = createHash('sha256');
      const reader = res.body!.getReader();
      let received = 0;
      let chunks = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        hash.update(value);
        if (++chunks % 8 === 0) sample();
      }
      sample();
      assert.equal(received, FILE_SIZE);
      assert.equal(hash.digest('hex'), deterministicSha256(FILE_SIZE));
      assert.ok(chunks > 10, `streamed in ${chunks} chunks`);
      ctx.diagnostic(`peak growth: external ${(peak.external / MB).toFixed(2)} MB, arrayBuffers ${(peak.arrayBuffers / MB).toFixed(2)} MB`);
      // Never the whole document held at once. The bound covers this whole process (the fake Drive,
      // the proxy and this reader, each with socket buffers: ~3-4 MB together, whatever the file's
      // size), so the file is large enough that buffering it could not pass.
      for (const [name, grew] of Object.entries(peak)) assert.ok(grew < FILE_SIZE / 2.5, `${name} grew by ${(grew / MB).toFixed(1)} MB`);
    });

    test('a Google Doc is exported as text through the proxy, as Google sends it, with stripBom telling the caller to remove its BOM; a folder is refused', async () => {
      const descriptor = (await (await t.api(`/fetch-document?id=${doc}`, { headers })).json()) as Json;
      assert.equal(descriptor.proxy.path, `/drive/v3/files/${doc}/export?mimeType=text%2Fplain`);
      assert.equal(descriptor.proxy.stripBom, true, 'the descriptor says to strip the BOM Google prefixes Docs text exports with');
      assert.equal(descriptor.size, null);
      // The proxy streams Google's bytes unchanged (README, "fetch-document"): the BOM is in the body; removing it is the caller's step.
      const res = await t.api(`/proxy${descriptor.proxy.path}`, { headers });
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Hello doc')]));

      const folder = await t.api(`/fetch-document?id=${tree.projects}`, { headers });
      assert.equal(folder.status, 500);
      assert.equal(((await folder.json()) as Json).error.payload.code, 'not_a_document');
      const missing = await t.api('/fetch-document?id=nope', { headers });
      assert.equal(missing.status, 424);
    });
  });
});
