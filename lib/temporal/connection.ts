/**
 * @module temporal/connection — how every process reaches Temporal: address, TLS / mTLS, API key
 * (Temporal Cloud), and a bounded, logged retry with backoff of the first connection, so an API or
 * worker started before the Temporal server is ready (compose, Kubernetes) waits instead of dying.
 */
import type { Config } from '../config.js';

export interface TemporalConnectRetry {
  /** Total attempts, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** The options both SDK connections (client and worker) take, built once from configuration. */
export interface TemporalConnectionSettings {
  address: string;
  /** false: plain TCP. */
  tls:
    | false
    | {
        serverNameOverride?: string;
        serverRootCACertificate?: Buffer;
        clientCertPair?: { crt: Buffer; key: Buffer };
      };
  apiKey?: string;
  retry: TemporalConnectRetry;
}

export const DEFAULT_CONNECT_RETRY: TemporalConnectRetry = { attempts: 10, initialDelayMs: 500, maxDelayMs: 5000 };

export function temporalConnectionSettings(config: Config, address: string): TemporalConnectionSettings {
  const t = config.temporalTls;
  return {
    address,
    tls: t
      ? {
          ...(t.serverName ? { serverNameOverride: t.serverName } : {}),
          ...(t.ca ? { serverRootCACertificate: t.ca } : {}),
          ...(t.clientCert ? { clientCertPair: { crt: t.clientCert.cert, key: t.clientCert.key } } : {}),
        }
      : false,
    ...(config.TEMPORAL_API_KEY ? { apiKey: config.TEMPORAL_API_KEY } : {}),
    retry: { ...DEFAULT_CONNECT_RETRY, attempts: config.TEMPORAL_CONNECT_ATTEMPTS },
  };
}

/** A plain-TCP target with the default retry (benchmarks, tools). */
export function plainTemporal(address: string): TemporalConnectionSettings {
  return { address, tls: false, retry: DEFAULT_CONNECT_RETRY };
}

/** gRPC codes that another attempt will not fix: bad request, refused credentials. */
const PERMANENT_GRPC_CODES = new Set([3 /* INVALID_ARGUMENT */, 7 /* PERMISSION_DENIED */, 16 /* UNAUTHENTICATED */]);

export function isPermanentConnectError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' && PERMANENT_GRPC_CODES.has(code);
}

export interface ConnectRetryLog {
  warn(obj: object, msg: string): void;
}

/**
 * Calls `connect` until it succeeds, at most `retry.attempts` times, waiting initialDelayMs, then
 * twice as long each time up to maxDelayMs; logs each failure (address, attempt, next delay, never
 * credentials). Refused credentials fail at once. The last error is thrown with the attempt count.
 */
export async function connectWithRetry<T>(
  what: string,
  settings: Pick<TemporalConnectionSettings, 'address' | 'retry'>,
  connect: () => Promise<T>,
  log?: ConnectRetryLog,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  const { attempts, initialDelayMs, maxDelayMs } = settings.retry;
  let delay = initialDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await connect();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isPermanentConnectError(err) || attempt >= attempts) {
        const why = isPermanentConnectError(err) ? 'refused' : `failed after ${attempt} attempt${attempt === 1 ? '' : 's'}`;
        throw new Error(`${what}: connecting to Temporal at ${settings.address} ${why}: ${message}`, { cause: err });
      }
      log?.warn({ address: settings.address, attempt, of: attempts, retryInMs: delay, err: message }, `${what}: Temporal not reachable yet, retrying`);
      await sleep(delay);
      delay = Math.min(delay * 2, maxDelayMs);
    }
  }
}
