/**
 * @module api/ws — the WebSocket the frontend SDK opens during an OAuth popup flow: the server
 * acknowledges with a client id, and the OAuth callback later publishes success or error to it.
 *
 * A browser cannot put a token on a WebSocket (no headers; @nangohq/frontend opens the bare URL), so
 * the socket is opened unauthenticated and then claimed: the popup's `GET /oauth/connect` carries
 * the connect-session token and the `ws_client_id`, and only a valid session claims the socket. An
 * unclaimed socket is closed after a short window; a claimed one after the idle timeout, whatever the
 * client sends (pings keep nothing open), and a session holds one socket (a newer claim replaces it).
 * Sockets are bounded for the instance and per remote address.
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
  maxClientsPerAddress: number;
  /** An unclaimed socket is closed this long after it opened. */
  claimTimeoutMs: number;
  /** A claimed socket is closed this long after its claim. */
  idleTimeoutMs: number;
}

/** Clients only listen: anything they send is ignored. */
const MAX_CLIENT_MESSAGE_BYTES = 4096;

interface Client {
  ws: WebSocket;
  address: string;
  sessionId: number | null;
  timer: NodeJS.Timeout;
}

function refuse(socket: Duplex, status: string, text: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
}

export class AuthSocketHub {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES });
  private readonly clients = new Map<string, Client>();
  /** Sockets per remote address, upgrades not yet open included. */
  private readonly perAddress = new Map<string, number>();
  private readonly bySession = new Map<number, string>();
  /** Upgrades accepted but not yet open, counted against the bound too. */
  private pending = 0;

  constructor(private readonly limits: AuthSocketLimits) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const address = req.socket.remoteAddress ?? 'unknown';
    if (this.clients.size + this.pending >= this.limits.maxClients) return refuse(socket, '503 Service Unavailable', 'Too many WebSocket clients');
    if ((this.perAddress.get(address) ?? 0) >= this.limits.maxClientsPerAddress)
      return refuse(socket, '429 Too Many Requests', 'Too many WebSocket clients from this address');
    this.pending++;
    this.perAddress.set(address, (this.perAddress.get(address) ?? 0) + 1);
    let opened = false;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (!opened) this.pending--;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left > 0) this.perAddress.set(address, left);
      else this.perAddress.delete(address);
    };
    socket.once('close', release);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      opened = true;
      this.pending--;
      const id = randomUUID();
      const client: Client = {
        ws,
        address,
        sessionId: null,
        timer: setTimeout(() => ws.close(1008, 'not claimed by a connect session'), this.limits.claimTimeoutMs),
      };
      this.clients.set(id, client);
      const forget = () => {
        clearTimeout(client.timer);
        if (this.clients.get(id) === client) this.clients.delete(id);
        if (client.sessionId !== null && this.bySession.get(client.sessionId) === id) this.bySession.delete(client.sessionId);
        release();
      };
      ws.on('close', forget);
      ws.on('error', forget);
      ws.send(JSON.stringify({ message_type: 'connection_ack', ws_client_id: id }));
    });
  }

  /**
   * Binds an open socket to the connect session whose token the popup's request carried: it then
   * lives for the idle timeout and receives the flow's outcome. False when the id is unknown (closed,
   * never opened) or another session holds it.
   */
  claim(clientId: string, sessionId: number): boolean {
    const client = this.clients.get(clientId);
    if (!client || (client.sessionId !== null && client.sessionId !== sessionId)) return false;
    const previous = this.bySession.get(sessionId);
    if (previous !== undefined && previous !== clientId) this.clients.get(previous)?.ws.close(1000, 'replaced by a newer flow of this session');
    client.sessionId = sessionId;
    this.bySession.set(sessionId, clientId);
    clearTimeout(client.timer);
    client.timer = setTimeout(() => client.ws.close(1000, 'idle timeout'), this.limits.idleTimeoutMs);
    return true;
  }

  publish(clientId: string | null | undefined, outcome: AuthOutcome): void {
    if (!clientId) return;
    const client = this.clients.get(clientId);
    if (!client) return;
    client.ws.send(JSON.stringify(outcome));
    client.ws.close();
  }

  close(): void {
    for (const client of this.clients.values()) {
      clearTimeout(client.timer);
      client.ws.terminate();
    }
    this.wss.close();
  }
}
