/**
 * @module config — the process configuration, parsed once from the environment with zod.
 */
import { z } from 'zod';
import os from 'node:os';
import path from 'node:path';

const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

const optionalUrl = z.string().url().optional();

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
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  SWITCHYARD_TEMPORAL: z.enum(['dev', 'server']).default('dev'),
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
  SWITCHYARD_WS_MAX_CLIENTS: z.coerce.number().int().positive().default(1000),
  SWITCHYARD_WS_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(15 * 60_000),
  SWITCHYARD_LOG_RETENTION_DAYS: z.coerce.number().int().positive().default(14),
  SWITCHYARD_WEBHOOK_RETRY_HOURS: z.coerce.number().positive().default(24),
  SWITCHYARD_SCRIPT_MEMORY_LIMIT_MB: z.coerce.number().int().min(16).max(4096).default(128),
  SWITCHYARD_SCRIPT_CPU_LIMIT_MS: z.coerce.number().int().min(100).default(30_000),
  SWITCHYARD_PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  SWITCHYARD_SCRIPT_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000),
  SWITCHYARD_NOW: z.string().datetime({ offset: true }).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  dataDir: string;
  publicUrl: string;
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
  const dataDir = path.resolve(raw.SWITCHYARD_DATA_DIR.replace(/^~(?=$|\/)/, os.homedir()));
  return {
    ...raw,
    dataDir,
    publicUrl: (raw.SWITCHYARD_PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
  };
}
