/**
 * @module log — structured JSON logs (pino) with credential redaction.
 */
import { pino, type Logger } from 'pino';

export const REDACTED = '[redacted]';

const redactPaths = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.secretKey',
  'credentials',
  '*.credentials',
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined, redact: { paths: redactPaths, censor: REDACTED } });
}

export type { Logger };
