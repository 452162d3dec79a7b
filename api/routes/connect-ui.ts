/**
 * @module api/routes/connect-ui — serves the hosted Connect UI (`frontend/connect-ui/`) and the
 * browser SDK (`frontend/sdk.js`). No auth: the UI authenticates with the connect-session token.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { NotFound } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';
import { defineRoute, html, redirect } from '../route.js';

const frontendDir = fileURLToPath(new URL('../../frontend/', import.meta.url));

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  body: string | Uint8Array<ArrayBuffer>;
  type: string;
}

function load(file: string): Asset | null {
  const type = contentTypes[path.extname(file)];
  if (!type) return null;
  return { body: type.includes('charset') ? readFileSync(file, 'utf8') : new Uint8Array(readFileSync(file)), type };
}

// The UI may be embedded by any site (openConnectUI), so no frame-ancestors restriction; apiURL may
// point at another origin, hence the open connect-src.
const UI_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src * ws: wss:; base-uri 'none'; form-action 'none'; object-src 'none'";

interface Assets {
  ui: Map<string, Asset>;
  index: Asset;
  sdk: Asset;
}

let loaded: Assets | undefined;

/** The servable files, read once: a request can only name one of these. Throws when the UI is missing. */
export function connectUiAssets(): Assets {
  if (loaded) return loaded;
  const uiDir = path.join(frontendDir, 'connect-ui');
  const ui = new Map<string, Asset>();
  for (const entry of readdirSync(uiDir, { withFileTypes: true })) {
    const asset = entry.isFile() ? load(path.join(uiDir, entry.name)) : null;
    if (asset) ui.set(entry.name, asset);
  }
  const sdk = load(path.join(frontendDir, 'sdk.js'))!;
  const index = ui.get('index.html');
  if (!index) throw new Error(`Connect UI is missing: ${path.join(uiDir, 'index.html')}`);
  loaded = { ui, index, sdk };
  return loaded;
}

const send = (c: Context<AppEnv>, asset: Asset, csp: boolean) =>
  c.body(asset.body, 200, {
    'content-type': asset.type,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    ...(csp ? { 'content-security-policy': UI_CSP } : {}),
  });

const anyAsset = Object.fromEntries([...new Set(Object.values(contentTypes).map((t) => t.split(';')[0]!))].map((t) => [t, { schema: {} }]));

export const connectUiRedirect = defineRoute({
  method: 'get',
  path: '/connect-ui',
  operationId: 'connectUiRedirect',
  summary: 'Redirects to /connect-ui/ (keeping the query)',
  tag: 'connect-ui',
  auth: 'none',
  responses: { 302: redirect('/connect-ui/') },
  errors: [],
}).handle(async (_input, c) => c.redirect(`/connect-ui/${new URL(c.req.url).search}`, 302));

export const connectUiIndex = defineRoute({
  method: 'get',
  path: '/connect-ui/',
  operationId: 'connectUiIndex',
  summary: 'The hosted Connect UI (authenticates with ?session_token=)',
  tag: 'connect-ui',
  auth: 'none',
  responses: { 200: html('The Connect UI page') },
  errors: [],
}).handle(async (_input, c) => send(c, connectUiAssets().index, true));

export const connectUiFile = defineRoute({
  method: 'get',
  path: '/connect-ui/:file',
  operationId: 'connectUiFile',
  summary: 'A file of the Connect UI',
  tag: 'connect-ui',
  auth: 'none',
  responses: { 200: { description: 'The file', content: anyAsset } },
  errors: [404],
}).handle(async (_input, c) => {
  const { ui, index } = connectUiAssets();
  const asset = ui.get(c.req.param('file') ?? '');
  if (!asset) throw new NotFound('not_found', 'No such file');
  return send(c, asset, asset === index);
});

export const browserSdk = defineRoute({
  method: 'get',
  path: '/sdk.js',
  operationId: 'browserSdk',
  summary: 'The browser SDK (openConnectUI)',
  tag: 'connect-ui',
  auth: 'none',
  responses: { 200: { description: 'JavaScript', content: { 'text/javascript': { schema: { type: 'string' } } } } },
  errors: [],
}).handle(async (_input, c) => send(c, connectUiAssets().sdk, false));
