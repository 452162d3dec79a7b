/**
 * @module api/ws — the WebSocket the frontend SDK opens during an OAuth popup flow: the server
 * acknowledges with a client id, and the OAuth callback later publishes success or error to it.
 * The number of open sockets is bounded, and a socket that sees no traffic for the idle timeout is
 * closed: each one holds memory until the flow ends, and a stranger could otherwise open millions.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type AuthOutcome =
  | { message_type: 'success'; provider_config_key: string; connection_id: string; is_pending: boolean }
  | { message_type: 'error'; provider_config_key: string; connection_id: string; error_type: string; error_desc: string };

export interface AuthSocketLimits {
  maxClients: number;
  idleTimeoutMs: number;
}

/** Clients only listen: anything they send is a ping at most. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;

export class AuthSocketHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  private readonly clients = new Map<string, WebSocket>();
  /** Upgrades accepted but not yet open, counted against the bound too. */
  private pending = 0;

  constructor(private readonly limits: AuthSocketLimits) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.clients.size + this.pending >= this.limits.maxClients) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 26\r\n\r\nToo many WebSocket clients');
      return;
    }
    this.pending++;
    let settled = false;
    const settle = () => {
      if (!settled) this.pending--;
      settled = true;
    };
    socket.once('close', settle);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      settle();
      const id = randomUUID();
      this.clients.set(id, ws);
      let idle: NodeJS.Timeout | undefined;
      const touch = () => {
        clearTimeout(idle);
        idle = setTimeout(() => ws.close(1000, 'idle timeout'), this.limits.idleTimeoutMs);
      };
      touch();
      ws.on('message', touch);
      ws.on('ping', touch);
      ws.on('close', () => {
        clearTimeout(idle);
        this.clients.delete(id);
      });
      ws.on('error', () => this.clients.delete(id));
      ws.send(JSON.stringify({ message_type: 'connection_ack', ws_client_id: id }));
    });
  }

  publish(clientId: string | null | undefined, outcome: AuthOutcome): void {
    if (!clientId) return;
    const ws = this.clients.get(clientId);
    if (!ws) return;
    ws.send(JSON.stringify(outcome));
    ws.close();
  }

  close(): void {
    for (const ws of this.clients.values()) ws.terminate();
    this.wss.close();
  }
}
