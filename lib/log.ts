/**
 * @module log — structured JSON logs (pino) with credential redaction.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { logFields } from './log-context.js';

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
  // Top-level spellings of the above, and what else carries secrets (OTLP collector headers,
  // signing keys, bearer tokens).
  'password',
  'client_secret',
  'access_token',
  'refresh_token',
  'apiKey',
  'api_key',
  'secret',
  'secretKey',
  'token',
  '*.token',
  '*.clientSecret',
  '*.webhookSecret',
  '*.webhook_secret',
  '*.signingKey',
  '*.privateKey',
  'otlpHeaders',
  '*.otlpHeaders',
  '*.otlp_headers',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
];

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  // mixin: the request id, or the activity's workflow and run ids, of the code that logs (lib/log-context.ts).
  return pino({ level, base: undefined, redact: { paths: redactPaths, censor: REDACTED }, mixin: () => logFields() }, destination);
}

export type { Logger };
