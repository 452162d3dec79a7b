/**
 * @module log — structured logs (pino) with credential redaction: JSON lines for machines, or, when
 * stdout is a terminal, pretty colored lines (pino-pretty) for people. `LOG_FORMAT=json|pretty`
 * forces either. Redaction runs before formatting, so secrets are censored in both.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
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

/** Pretty when asked to (`LOG_FORMAT=pretty`) or when stdout is a terminal and JSON was not asked for. */
export function wantsPrettyLogs(env: NodeJS.ProcessEnv = process.env, isTTY = process.stdout.isTTY === true): boolean {
  const format = env.LOG_FORMAT?.toLowerCase();
  return format === 'pretty' || (format !== 'json' && isTTY);
}

/** pino-pretty, synchronous (so the last lines before an exit are not lost), colored when the terminal is. */
export function prettyStream(destination?: NodeJS.WritableStream): DestinationStream {
  return pretty({ colorize: !destination && process.stdout.isTTY === true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination });
}

export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  // mixin: the request id, or the activity's workflow and run ids, of the code that logs (lib/log-context.ts).
  const stream = destination ?? (wantsPrettyLogs() ? prettyStream() : undefined);
  return pino({ level, base: undefined, redact: { paths: redactPaths, censor: REDACTED }, mixin: () => logFields() }, stream);
}

export type { Logger };
