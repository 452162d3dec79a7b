/**
 * @module bench/lib/passthrough-main — the proxy benchmark's floor: a bare pass-through proxy in its
 * own process, node:http in front of undici (keep-alive), no auth, no database, no logs. It forwards
 * `/proxy/<path>` to UPSTREAM/<path> with the fake's API key (as Switchyard injects it) and streams
 * the answer back with its status and headers minus hop-by-hop ones. Says its port over IPC.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';

const upstream = process.env.PASSTHROUGH_UPSTREAM!;
const apiKey = process.env.PASSTHROUGH_API_KEY!;
const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').replace(/^\/proxy(?=\/|$)/, '');
  request(upstream + path, { dispatcher: agent, method: req.method as 'GET', headers: { 'x-api-key': apiKey } })
    .then(async (up) => {
      for (const [name, value] of Object.entries(up.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
      res.statusCode = up.statusCode;
      await pipeline(up.body, res);
    })
    .catch(() => {
      if (!res.headersSent) res.statusCode = 502;
      res.end();
    });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
const stop = () => {
  server.close();
  void agent.close().finally(() => process.exit(0));
};
process.on('message', (m) => m === 'stop' && stop());
process.on('disconnect', stop);
