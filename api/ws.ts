/**
 * @module api/ws — the WebSocket the frontend SDK opens during an OAuth popup flow: the server
 * acknowledges with a client id, and the OAuth callback later publishes success or error to it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type AuthOutcome =
  | { message_type: 'success'; provider_config_key: string; connection_id: string; is_pending: boolean }
  | { message_type: 'error'; provider_config_key: string; connection_id: string; error_type: string; error_desc: string };

export class AuthSocketHub {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly clients = new Map<string, WebSocket>();

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const id = randomUUID();
      this.clients.set(id, ws);
      ws.on('close', () => this.clients.delete(id));
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
