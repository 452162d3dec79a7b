/**
 * Binary bodies through the sandbox, end to end on the platform (real Temporal and Postgres, the
 * Google Drive fake): Nango functions that download a file that is not UTF-8 (every byte value)
 * with `responseType: 'arraybuffer'` and `'stream'`, as Nango's templates do, get its bytes exactly;
 * one that uploads a Buffer (Drive's simple upload) delivers them exactly; and the global `fetch`
 * Nango's runtime gives functions works, through the outbound address policy, without credentials.
 * `switchyard dryrun` (the CLI, through the platform's proxy) carries the same bytes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startGoogleDriveFake, type GoogleDriveFake } from './fakes/index.js';
import { startTestPlatform, type TestPlatform } from './harness.js';
import { runCli } from './nango-cli.js';
import { deployScripts } from './deploy-scripts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PCK = 'drive-files';
const CONN = 'drive-bytes';
const TOKEN = 'ya29.bytes-test-token';
/** Every byte value once: not valid UTF-8, so any text conversion on the way changes it. */
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 7) % 256));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const BYTES: Record<string, string> = {
  'actions/download-file.ts': `import { z } from 'zod';
import { createHash } from 'crypto';
import { createAction } from 'nango';

export default createAction({
  description: "A file's content, read as bytes (arraybuffer) and as a stream",
  input: z.object({ id: z.string() }),
  output: z.record(z.string(), z.unknown()),
  exec: async (nango, input) => {
    const config = { endpoint: \`/drive/v3/files/\${input.id}\`, params: { alt: 'media' } };
    const whole = await nango.get({ ...config, responseType: 'arraybuffer' });
    const chunks: Buffer[] = [];
    for await (const chunk of (await nango.get({ ...config, responseType: 'stream' })).data) chunks.push(chunk);
    const streamed = Buffer.concat(chunks);
    return {
      isBuffer: Buffer.isBuffer(whole.data),
      length: whole.data.length,
      sha256: createHash('sha256').update(whole.data).digest('hex'),
      streamedSha256: createHash('sha256').update(streamed).digest('hex'),
    };
  },
});
`,
  'actions/upload-file.ts': `import { z } from 'zod';
import { createAction } from 'nango';

export default createAction({
  description: 'Uploads bytes given as base64, as a Buffer or as a Uint8Array (Drive simple upload)',
  input: z.object({ base64: z.string(), as: z.enum(['buffer', 'uint8array']) }),
  output: z.object({ id: z.string(), mimeType: z.string() }),
  exec: async (nango, input) => {
    const buffer = Buffer.from(input.base64, 'base64');
    const res = await nango.post({
      endpoint: '/upload/drive/v3/files',
      params: { uploadType: 'media' },
      headers: { 'Content-Type': 'application/octet-stream' },
      data: input.as === 'buffer' ? buffer : new Uint8Array(buffer),
    });
    return { id: res.data.id, mimeType: res.data.mimeType };
  },
});
`,
};

const FETCH: Record<string, string> = {
  'actions/fetch-file.ts': `import { z } from 'zod';
import { createHash } from 'crypto';
import { createAction } from 'nango';

export default createAction({
  description: "The global fetch: a file's bytes, with or without the token the function adds itself",
  input: z.object({ url: z.string(), withToken: z.boolean() }),
  output: z.record(z.string(), z.unknown()),
  exec: async (nango, input) => {
    const headers: Record<string, string> = {};
    if (input.withToken) headers['Authorization'] = \`Bearer \${await nango.getToken()}\`;
    const res: Response = await fetch(new URL(input.url), { method: 'GET', headers });
    if (!res.ok) return { status: res.status, error: await res.json() };
    const bytes = new Uint8Array(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type'), length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  },
});
`,
};

describe('binary bodies and fetch in the sandbox, on the platform', () => {
  let t: TestPlatform;
  let drive: GoogleDriveFake;
  let work: string;
  let fileId: string;

  /** Type-checks, bundles and deploys the project's files (activated), as `switchyard compile` + `deploy --activate` do. */
  const deploy = (files: Record<string, string>) => deployScripts(t, PCK, files, { dir: work, typecheck: true });
  const trigger = async (name: string, input: unknown) => {
    const res = await t.api('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': CONN, 'provider-config-key': PCK },
      json: { action_name: name, input },
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  before(async () => {
    t = await startTestPlatform();
    // Uploads need a write scope: the connection's token has Drive's full scope.
    drive = await startGoogleDriveFake({ token: 'ya29.read-only-token' });
    drive.oauth.seedToken(TOKEN, { scope: 'https://www.googleapis.com/auth/drive' });
    fileId = drive.addFile({ name: 'all-bytes.bin', content: ALL_BYTES }).id;
    const created = await t.api('/integrations', {
      method: 'POST',
      json: { provider: 'google-drive', unique_key: PCK, integration_config: { base_url: drive.url } },
    });
    assert.equal(created.status, 200, await created.clone().text());
    const conn = await t.api('/connections', {
      method: 'POST',
      json: { provider_config_key: PCK, connection_id: CONN, credentials: { type: 'OAUTH2', access_token: TOKEN } },
    });
    assert.equal(conn.status, 201, await conn.clone().text());
    work = await mkdtemp(path.join(process.env.SWITCHYARD_TEST_WORK_DIR ?? os.tmpdir(), 'sandbox-bytes-'));
    await deploy(BYTES);
    // What the CLI (dryrun) reads of a Nango project (zod pinned as the CLI asks).
    await writeFile(
      path.join(work, 'package.json'),
      JSON.stringify({
        name: 'nango-integrations',
        private: true,
        type: 'module',
        devDependencies: { zod: '4.0.5' },
      }),
    );
    await writeFile(path.join(work, '.env'), `NANGO_SECRET_KEY_DEV=${t.devKey}\nNANGO_HOST=${t.url}\n`);
  });
  after(async () => {
    await t?.stop();
    await drive?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test("a download with responseType 'arraybuffer' or 'stream' gets the file's bytes exactly, as a Buffer", async () => {
    const res = await trigger('download-file', { id: fileId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { isBuffer: true, length: 256, sha256: sha256(ALL_BYTES), streamedSha256: sha256(ALL_BYTES) });
  });

  test('an upload of a Buffer or a Uint8Array reaches the provider byte for byte', async () => {
    for (const as of ['buffer', 'uint8array']) {
      const res = await trigger('upload-file', { base64: ALL_BYTES.toString('base64'), as });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.mimeType, 'application/octet-stream');
      const stored = drive.state.files.find((f) => f.id === res.body.id);
      assert.ok(stored, `${as}: the fake has the uploaded file`);
      assert.deepEqual([as, Buffer.from(stored.content ?? '').toString('hex')], [as, ALL_BYTES.toString('hex')]);
    }
  });

  test('dryrun downloads and uploads the same bytes through the proxy', async () => {
    const dryrun = (name: string, input: unknown) => runCli(['dryrun', name, CONN, '--integration', PCK, '--input', JSON.stringify(input), '--dir', work]);
    const down = await dryrun('download-file', { id: fileId });
    assert.equal(down.code, 0, down.stdout + down.stderr);
    assert.match(down.stdout, /"isBuffer": true/);
    assert.match(down.stdout, new RegExp(`"sha256": "${sha256(ALL_BYTES)}"[\\s\\S]*"streamedSha256": "${sha256(ALL_BYTES)}"`));
    const before = drive.state.files.length;
    const up = await dryrun('upload-file', { base64: ALL_BYTES.toString('base64'), as: 'buffer' });
    assert.equal(up.code, 0, up.stdout + up.stderr);
    assert.equal(drive.state.files.length, before + 1);
    assert.equal(Buffer.from(drive.state.files.at(-1)!.content ?? '').toString('hex'), ALL_BYTES.toString('hex'));
  });

  test("the global fetch reaches the provider without the connection's credentials, returns bytes exactly, and is refused a forbidden address", async () => {
    await deploy(FETCH);
    const url = `${drive.url}/drive/v3/files/${fileId}?alt=media`;
    const without = await trigger('fetch-file', { url, withToken: false });
    assert.equal(without.status, 200, JSON.stringify(without.body));
    assert.equal(without.body.status, 401, 'no credentials are added to a fetch');
    assert.equal(without.body.error.error.errors[0].reason, 'authError');

    const withToken = await trigger('fetch-file', { url, withToken: true });
    assert.deepEqual(withToken.body, { status: 200, type: 'application/octet-stream', length: 256, sha256: sha256(ALL_BYTES) });
    const logged = ((await (await t.api(`/logs?connection_id=${CONN}&kind=action`)).json()) as Json).data as Json[];
    assert.ok(logged.some((l) => String(l.url).includes(`/drive/v3/files/${fileId}`) && l.status === 200));

    const refused = await trigger('fetch-file', { url: 'http://169.254.169.254/latest/meta-data/', withToken: false });
    assert.equal(refused.status, 500);
    assert.equal(refused.body.error.code, 'action_script_runtime_error');
    assert.deepEqual(refused.body.error.payload, { code: 'url_not_allowed', message: 'This URL is not allowed by server configuration.' });
  });
});
