/**
 * @module api/server-options — the API's node:http server settings.
 *
 * A keep-alive connection stays open for 65 s without a request (node's default is 5 s). Clients and
 * load balancers keep idle connections for longer than 5 s (undici and the bench's clients 30 s, AWS's
 * load balancers 60 s): with 5 s the server closed them under the client after any pause, so the next
 * burst paid new connections, and a client that sent on a connection the server was closing saw it
 * reset. Above the usual 60 s of a load balancer, so the balancer closes first.
 */
import type { ServerOptions } from 'node:http';

export const API_KEEP_ALIVE_TIMEOUT_MS = 65_000;

export const apiServerOptions: ServerOptions = { keepAliveTimeout: API_KEEP_ALIVE_TIMEOUT_MS };
