/**
 * A sample developer backend that receives Switchyard webhooks (node:http, no framework).
 *
 *   SWITCHYARD_HOST=http://localhost:3003 \
 *   SWITCHYARD_SECRET_KEY=<environment secret key> \
 *   SWITCHYARD_WEBHOOK_SIGNING_KEY=<GET /environment → webhook_signing_key> \
 *   PORT=4000 node --import tsx examples/backend/server.ts
 *
 * then point the environment at it:
 *   curl -X PATCH $SWITCHYARD_HOST/environment -H "Authorization: Bearer $SWITCHYARD_SECRET_KEY" \
 *        -H 'content-type: application/json' -d '{"webhook_url":"http://localhost:4000/webhooks-from-platform"}'
 * (a loopback URL is refused unless its host is in SWITCHYARD_ALLOWED_PRIVATE_HOSTS).
 *
 * POST /webhooks-from-platform:
 * - verifies X-Switchyard-Signature-V2 over the raw body and refuses timestamps older than 5 min
 *   (401). During a key rotation, put both keys in SWITCHYARD_WEBHOOK_SIGNING_KEY, comma-separated;
 * - on a `sync` webhook, reads the changed records with GET /records from the cursor stored for
 *   that connection and model, and stores the new cursor. Reading from a cursor is idempotent, so
 *   a webhook delivered twice (delivery is at least once) does no harm;
 * - answers 200 only once the work is done: any other answer (or none within 20 s) makes the
 *   platform retry with backoff for hours, so nothing is lost while this process is down.
 *
 * Cursors live in memory here; keep them in your database.
 */
import http from 'node:http';
import { verifyWebhook } from '../../features/webhooks/verify.js';

const HOST = (process.env.SWITCHYARD_HOST ?? 'http://localhost:3003').replace(/\/+$/, '');
const SECRET_KEY = process.env.SWITCHYARD_SECRET_KEY ?? '';
const SIGNING_KEYS = (process.env.SWITCHYARD_WEBHOOK_SIGNING_KEY ?? '').split(',').filter(Boolean);
const PORT = Number(process.env.PORT ?? 4000);
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** `${providerConfigKey}/${connectionId}/${model}` → the cursor of the last record read. */
const cursors = new Map<string, string>();

interface SyncWebhook {
  type: 'sync';
  connectionId: string;
  providerConfigKey: string;
  model: string;
  success: boolean;
  syncName: string;
}

interface RecordsPage {
  records: { id: string; _nango_metadata: { last_action: 'ADDED' | 'UPDATED' | 'DELETED'; cursor: string } }[];
  next_cursor: string | null;
}

/** Reads every record changed since the stored cursor, page by page. */
async function readChanges(hook: SyncWebhook): Promise<number> {
  const key = `${hook.providerConfigKey}/${hook.connectionId}/${hook.model}`;
  let cursor = cursors.get(key);
  let count = 0;
  for (;;) {
    const url = new URL(`${HOST}/records`);
    url.searchParams.set('model', hook.model);
    if (cursor) url.searchParams.set('cursor', cursor);
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${SECRET_KEY}`, 'connection-id': hook.connectionId, 'provider-config-key': hook.providerConfigKey },
    });
    if (!res.ok) throw new Error(`GET /records answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as RecordsPage;
    for (const record of page.records) {
      // Apply the change to your own store here (upsert, or delete on DELETED).
      console.log(`[backend] ${hook.model} ${record.id} ${record._nango_metadata.last_action}`);
      cursor = record._nango_metadata.cursor;
      count++;
    }
    if (cursor) cursors.set(key, cursor);
    if (!page.next_cursor) return count;
    cursor = page.next_cursor;
  }
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const server = http.createServer(async (req, res) => {
  const reply = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  if (req.method !== 'POST' || req.url !== '/webhooks-from-platform') return reply(404, 'not found');
  try {
    const raw = await readBody(req);
    const check = verifyWebhook(raw, req.headers, SIGNING_KEYS);
    if (!check.ok) return reply(401, check.reason);
    const hook = JSON.parse(raw.toString('utf8')) as { type: string } & Record<string, unknown>;
    if (hook.type === 'sync' && hook.success) {
      const n = await readChanges(hook as unknown as SyncWebhook);
      console.log(`[backend] sync ${String(hook.syncName)}: ${n} changed records read`);
    } else {
      console.log(`[backend] ${hook.type} webhook`, hook);
    }
    reply(200, 'ok');
  } catch (err) {
    console.error('[backend] failed; the platform will retry:', err);
    reply(500, 'try again');
  }
});

if (!SECRET_KEY || SIGNING_KEYS.length === 0) {
  console.error('Set SWITCHYARD_SECRET_KEY and SWITCHYARD_WEBHOOK_SIGNING_KEY (see the top of this file).');
  process.exit(1);
}
server.listen(PORT, () => console.log(`[backend] listening on http://localhost:${PORT}/webhooks-from-platform`));
