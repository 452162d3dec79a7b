/**
 * @module api/routes/connect-ui — serves the hosted Connect UI (`frontend/connect-ui/`) and the
 * browser SDK (`frontend/sdk.js`). No auth: the UI authenticates with the connect-session token.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { NotFound } from '../../lib/errors.js';
import type { AppDeps, AppEnv } from '../context.js';

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

export function connectUiRoutes(_deps: AppDeps) {
  const uiDir = path.join(frontendDir, 'connect-ui');
  // The set of servable files is fixed at startup: a request can only name one of these.
  const ui = new Map<string, Asset>();
  for (const entry of readdirSync(uiDir, { withFileTypes: true })) {
    const asset = entry.isFile() ? load(path.join(uiDir, entry.name)) : null;
    if (asset) ui.set(entry.name, asset);
  }
  const sdk = load(path.join(frontendDir, 'sdk.js'))!;
  const index = ui.get('index.html');
  if (!index) throw new Error(`Connect UI is missing: ${path.join(uiDir, 'index.html')}`);

  const send = (c: Context<AppEnv>, asset: Asset, csp: boolean) =>
    c.body(asset.body, 200, {
      'content-type': asset.type,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      ...(csp ? { 'content-security-policy': UI_CSP } : {}),
    });

  return new Hono<AppEnv>()
    .get('/connect-ui', (c) => c.redirect(`/connect-ui/${new URL(c.req.url).search}`, 302))
    .get('/connect-ui/', (c) => send(c, index, true))
    .get('/connect-ui/:file', (c) => {
      const asset = ui.get(c.req.param('file'));
      if (!asset) throw new NotFound('not_found', 'No such file');
      return send(c, asset, asset === index);
    })
    .get('/sdk.js', (c) => send(c, sdk, false));
}
