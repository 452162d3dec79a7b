/**
 * `switchyard compile` of a Nango project accepts what Nango's CLI accepts (issue 29): its
 * type-check has Nango's exactOptionalPropertyTypes and noUncheckedIndexedAccess (params built as
 * `cond ? { a, b } : { a }`, an index read that may be undefined), a function's kind comes from
 * its definition wherever its file sits (a createSync in actions/), and the sandbox's globals
 * (Buffer, URLSearchParams iteration, Headers, atob/btoa, crypto digests as Buffers, nango.provider)
 * type-check as Node declares them. A project without Nango's layout keeps folder and kind equal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PACKAGE_ROOT } from './project.js';

const FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'nango-rules', private: true, type: 'module', dependencies: { nango: '0.71.10', zod: '4.3.6' } })}\n`,
  'index.ts': `import './demo/actions/nodes.js';\nimport './demo/actions/search.js';\n`,
  // A project's own types of a module that needs Node reference @types/node (as @types/unzipper does):
  // the type-check must not let Node's globals in beside the sandbox's.
  'node_modules/@types/unzipper/package.json': '{ "name": "@types/unzipper", "version": "0.10.0", "types": "index.d.ts" }\n',
  'node_modules/@types/unzipper/index.d.ts': '/// <reference types="node" />\nexport declare function Open(): Buffer;\n',
  // A sync in the actions folder, as one function of Nango's template library is.
  'demo/actions/nodes.ts': `import { createSync } from 'nango';
import * as unzipper from 'unzipper';
import * as z from 'zod';

export default createSync({
    description: 'Nodes, kept by a sync that sits in actions/',
    frequency: 'every day',
    models: { Node: z.object({ id: z.string(), digest: z.string() }) },
    exec: async (nango) => {
        const cursors: Record<string, string> = {};
        let next = cursors[nango.connectionId];
        if (!next) next = '/nodes';
        const query = new URLSearchParams({ b: '2', a: '1' });
        query.sort();
        const params = nango.provider === 'demo-sandbox' ? { ...Object.fromEntries(query.entries()), sandbox: 'true' } : { ...Object.fromEntries(query) };
        const res = await nango.get({ endpoint: next, params });
        next = undefined;
        const crypto = await import('crypto');
        const digest = crypto.createHash('sha256').update(Buffer.from(JSON.stringify(res.data), 'utf8')).digest();
        let raw: Buffer | null = null;
        if (Buffer.isBuffer(res.data)) raw = res.data;
        if (raw && typeof unzipper.Open === 'function') await nango.log('zipped');
        await nango.batchSave([{ id: '1', digest: Buffer.concat([digest]).toString('base64url') }], 'Node');
    }
});
`,
  'demo/actions/search.ts': `import { createAction } from 'nango';
import * as z from 'zod';

export default createAction({
    description: 'Search, with optional params as Nango functions write them',
    input: z.object({ q: z.string().optional() }),
    output: z.object({ found: z.number(), type: z.string().nullable() }),
    exec: async (nango, input) => {
        const params = input.q ? { q: input.q } : {};
        const res = await nango.get({ endpoint: '/search', params });
        const headers = new Headers(res.headers as Record<string, string>);
        return { found: atob(btoa(String(res.data.length))).length, type: headers.get('content-type') };
    }
});
`,
};

function compile(dir: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PACKAGE_ROOT, 'cli', 'bin.mjs'), 'compile', '--dir', dir], {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code: code ?? 1, out }));
  });
}

describe("compile of a Nango project accepts what Nango's CLI accepts", () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'nango-rules-'));
    for (const [file, code] of Object.entries(FILES)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), code);
    }
    await symlink(path.join(PACKAGE_ROOT, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
    await symlink(path.join(PACKAGE_ROOT, 'node_modules', '@types', 'node'), path.join(dir, 'node_modules', '@types', 'node'), 'dir');
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("both functions compile; the one in actions/ is a sync, as Nango's CLI takes it", async () => {
    const r = await compile(dir);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /compiled 2 of 2 functions/);
    const manifest = JSON.parse(await readFile(path.join(dir, 'build', 'manifest.json'), 'utf8')) as {
      scripts: { name: string; manifest: { type: string } }[];
    };
    assert.deepEqual(manifest.scripts.map((s) => `${s.name} ${s.manifest.type}`).sort(), ['nodes sync', 'search action']);
  });
});
