/**
 * @module config — the process configuration, parsed once from the environment with zod.
 */
import { z } from 'zod';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const optionalUrl = z.string().url().optional();

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/**
 * A PEM given inline (starting with `-----BEGIN`) or as a path to a file holding it. A path that
 * does not exist or does not hold PEM fails the parse, naming the variable.
 */
const pem = z.string().transform((value, ctx) => {
  if (value.trimStart().startsWith('-----BEGIN')) return Buffer.from(value.replace(/\\n/g, '\n'));
  if (!existsSync(value)) {
    ctx.addIssue({ code: 'custom', message: `file ${value} does not exist (give a path to a PEM file, or the PEM itself)` });
    return z.NEVER;
  }
  const content = readFileSync(value);
  if (!content.toString('utf8').includes('-----BEGIN')) {
    ctx.addIssue({ code: 'custom', message: `file ${value} holds no PEM block (-----BEGIN …)` });
    return z.NEVER;
  }
  return content;
});

/** An environment's name, as POST /environments accepts it. */
const workerEnvironment = z
  .string()
  .max(255)
  .regex(/^[a-z0-9_-]+$/, 'an environment name: lowercase letters, digits, hyphens and underscores');

const secretKey = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i, 'must be a UUID v4')
  .optional();

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3003),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[^:\s]+:\d+$/, 'must be host:port')
    .optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  // TLS / mTLS and API-key auth to a Temporal frontend (a secured cluster, Temporal Cloud).
  TEMPORAL_TLS: flag.optional(),
  TEMPORAL_TLS_CA: pem.optional(),
  TEMPORAL_TLS_CERT: pem.optional(),
  TEMPORAL_TLS_KEY: pem.optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_CONNECT_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  // The longest a query waits for a free pool connection before it fails (503 database_busy).
  DATABASE_POOL_WAIT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  // Unset: every environment, those created later included (worker/index.ts follows the table).
  SWITCHYARD_WORKER_ENVIRONMENTS: commaList.pipe(z.array(workerEnvironment).min(1, 'name at least one environment (dev, prod, …)')).optional(),
  SWITCHYARD_WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SWITCHYARD_WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  // Runs each environment's Temporal worker keeps in memory between tasks (worker/cache.ts).
  SWITCHYARD_WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(2).max(100_000).default(200),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  SWITCHYARD_TEMPORAL: z.enum(['dev', 'server']).default('dev'),
  // The dev server's SQLite `synchronous` (lib/embedded/temporal.ts): `normal` skips the per-commit fsync.
  SWITCHYARD_TEMPORAL_SQLITE_SYNCHRONOUS: z.enum(['full', 'normal']).default('full'),
  SWITCHYARD_PUBLIC_URL: optionalUrl,
  SWITCHYARD_ENCRYPTION_KEY: z
    .string()
    .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'must be 32 bytes as 64 hex characters or base64')
    .optional(),
  SWITCHYARD_PREVIOUS_ENCRYPTION_KEYS: commaList
    .pipe(z.array(z.string().regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, 'each key must be 32 bytes as 64 hex characters or base64')))
    .default([]),
  SWITCHYARD_SECRET_KEY_DEV: secretKey,
  SWITCHYARD_SECRET_KEY_PROD: secretKey,
  SWITCHYARD_ALLOWED_PRIVATE_HOSTS: commaList.default([]),
  SWITCHYARD_DATA_DIR: z.string().min(1).default('.switchyard'),
  SWITCHYARD_TASK_QUEUE_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]+$/)
    .default('switchyard'),
  SWITCHYARD_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(5488),
  SWITCHYARD_EMBEDDED_TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
  SWITCHYARD_ACTION_INPUT_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024),
  SWITCHYARD_REQUEST_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  // POST /scripts/deploy and its preview carry whole integrations, each bundle with its own zod
  // (~300 KB): 75 MB, Nango's public body limit, holds its largest template integration (152 functions).
  SWITCHYARD_DEPLOY_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(75 * 1024 * 1024),
  // The longest an OAuth token refresh waits for the provider's whole answer (not only between chunks).
  SWITCHYARD_TOKEN_REFRESH_DEADLINE_MS: z.coerce.number().int().min(1000).max(300_000).default(30_000),
  SWITCHYARD_WS_MAX_CLIENTS: z.coerce.number().int().positive().default(1000),
  SWITCHYARD_WS_MAX_CLIENTS_PER_ADDRESS: z.coerce.number().int().positive().default(20),
  SWITCHYARD_WS_CLAIM_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  SWITCHYARD_WS_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(15 * 60_000),
  SWITCHYARD_LOG_RETENTION_DAYS: z.coerce.number().int().positive().default(14),
  // The longest a request-log entry waits in memory before its batch is written (features/logs/writer.ts).
  SWITCHYARD_REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(1).max(60_000).default(100),
  SWITCHYARD_WEBHOOK_RETRY_HOURS: z.coerce.number().positive().default(24),
  SWITCHYARD_WEBHOOK_MAX_PER_SECOND: z.coerce.number().min(0).max(10_000).default(0),
  // A sync schedule's firing still starts when Temporal gets to it this late (catch-up window; Temporal's minimum is 10 s).
  SWITCHYARD_SYNC_CATCHUP_MINUTES: z.coerce.number().int().min(1).max(525_600).default(60),
  // Each sync schedule's phase: a fixed offset in [0, min(frequency, this)) from its schedule id, so many schedules do not fire on the same second.
  SWITCHYARD_SYNC_SPREAD_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
  SWITCHYARD_SCRIPT_MEMORY_LIMIT_MB: z.coerce.number().int().min(16).max(4096).default(128),
  SWITCHYARD_SCRIPT_CPU_LIMIT_MS: z.coerce.number().int().min(100).default(30_000),
  SWITCHYARD_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  SWITCHYARD_SCRIPT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000),
  SWITCHYARD_NOW: z.string().datetime({ offset: true }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type RawConfig = z.infer<typeof configSchema>;

/** How to reach Temporal securely; null: plain TCP (the default, and the embedded dev server). */
export interface TemporalTls {
  /** CA bundle that signed the server certificate; unset: the system's roots. */
  ca?: Buffer;
  /** Client certificate and key (mTLS). */
  clientCert?: { cert: Buffer; key: Buffer };
  serverName?: string;
}

export interface Config extends RawConfig {
  dataDir: string;
  publicUrl: string;
  temporalTls: TemporalTls | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment; throws ConfigError naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const raw = parsed.data;
  const tls = temporalTlsFrom(raw);
  if (tls.problems.length > 0) throw new ConfigError(tls.problems);
  const dataDir = path.resolve(raw.SWITCHYARD_DATA_DIR.replace(/^~(?=$|\/)/, os.homedir()));
  return {
    ...raw,
    dataDir,
    publicUrl: (raw.SWITCHYARD_PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    temporalTls: tls.value,
  };
}

/**
 * TLS is on when TEMPORAL_TLS=true, or when a CA, client certificate, server name or API key is
 * given (an API key travels only over TLS: Temporal Cloud); TEMPORAL_TLS=false with any of those is
 * refused rather than silently ignored.
 */
function temporalTlsFrom(raw: RawConfig): { value: TemporalTls | null; problems: string[] } {
  const problems: string[] = [];
  if (raw.TEMPORAL_TLS_CERT && !raw.TEMPORAL_TLS_KEY) problems.push('TEMPORAL_TLS_KEY: required with TEMPORAL_TLS_CERT (mTLS needs both)');
  if (raw.TEMPORAL_TLS_KEY && !raw.TEMPORAL_TLS_CERT) problems.push('TEMPORAL_TLS_CERT: required with TEMPORAL_TLS_KEY (mTLS needs both)');
  const implied = ['TEMPORAL_TLS_CA', 'TEMPORAL_TLS_CERT', 'TEMPORAL_TLS_KEY', 'TEMPORAL_TLS_SERVER_NAME', 'TEMPORAL_API_KEY'] as const;
  const given = implied.filter((k) => raw[k] !== undefined);
  if (raw.TEMPORAL_TLS === false && given.length > 0) problems.push(`TEMPORAL_TLS: is false but ${given.join(', ')} need TLS`);
  const on = raw.TEMPORAL_TLS === true || given.length > 0;
  if (on && !raw.TEMPORAL_ADDRESS) {
    problems.push(`TEMPORAL_ADDRESS: required with ${given.length > 0 ? given.join(', ') : 'TEMPORAL_TLS'} (the embedded dev server runs without TLS)`);
  }
  if (problems.length > 0 || !on) return { value: null, problems };
  return {
    value: {
      ...(raw.TEMPORAL_TLS_CA ? { ca: raw.TEMPORAL_TLS_CA } : {}),
      ...(raw.TEMPORAL_TLS_CERT && raw.TEMPORAL_TLS_KEY ? { clientCert: { cert: raw.TEMPORAL_TLS_CERT, key: raw.TEMPORAL_TLS_KEY } } : {}),
      ...(raw.TEMPORAL_TLS_SERVER_NAME ? { serverName: raw.TEMPORAL_TLS_SERVER_NAME } : {}),
    },
    problems,
  };
}
