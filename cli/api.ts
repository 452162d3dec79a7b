/**
 * @module cli/api — the platform's API as the CLI sees it: every request announces the CLI
 * (`User-Agent: switchyard-cli/<version>`), and every failure becomes an error that says what to do.
 */
import { CLI_VERSION, hostOf, secretKeyFor } from './project.js';
import { CliError } from './ui.js';

export interface ApiErrorBody {
  error?: { code?: string; message?: string; errors?: { code?: string; message?: string; path?: (string | number)[] }[] };
}

export class Api {
  readonly host = hostOf();
  private readonly key: string;
  private readonly variable: string;
  /** Bytes of the request bodies sent so far (a deploy reports what it uploaded). */
  bytesSent = 0;

  constructor(readonly env: string) {
    const { key, variable } = secretKeyFor(env);
    this.key = key;
    this.variable = variable;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.key}`, 'user-agent': `switchyard-cli/${CLI_VERSION}`, ...extra };
  }

  /** A raw request (the dry run's proxy calls read the upstream answer themselves). */
  async fetch(pathname: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {}): Promise<Response> {
    try {
      return await fetch(`${this.host}${pathname}`, { method: init.method ?? 'GET', headers: this.headers(init.headers), body: init.body });
    } catch (err) {
      throw new CliError(
        `Cannot reach the platform at ${this.host} (${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message})`,
        'start it (`npm start` in the Switchyard repository) or set SWITCHYARD_HOST to its URL',
      );
    }
  }

  async json<T>(method: string, pathname: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    this.bytesSent += payload === undefined ? 0 : Buffer.byteLength(payload);
    const res = await this.fetch(pathname, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: payload });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (res.ok) return parsed as T;
    throw this.failure(res.status, parsed as ApiErrorBody | null, text);
  }

  failure(status: number, body: ApiErrorBody | null, text: string): CliError {
    const e = body?.error;
    const message = e?.message ?? (text.slice(0, 300) || `HTTP ${status}`);
    const details = (e?.errors ?? []).map((x) => `- ${x.path?.length ? `${x.path.join('.')}: ` : ''}${x.message ?? x.code ?? ''}`);
    if (status === 426) {
      return new CliError(
        `The platform at ${this.host} refused this CLI (${CLI_VERSION}): ${message}`,
        'upgrade the CLI (update your Switchyard checkout / package) and run the command again',
      );
    }
    if (status === 401) {
      return new CliError(
        `The platform at ${this.host} refused the key in ${this.variable} (${e?.code ?? 'unauthorized'})`,
        `set ${this.variable} to the secret key of the ${this.env} environment of that platform`,
      );
    }
    const next: Record<string, string> = {
      reserved_endpoint: 'change the endpoint path in the script (platform routes such as /connections or /proxy are reserved), compile and deploy again',
      unknown_integration: 'create the integration first (POST /integrations) or rename the project folder to the key of an existing integration',
      manifest_mismatch: 'run `switchyard compile` again and deploy',
      endpoint_conflict: 'give each endpoint to one script only, then deploy again',
      invalid_bundle: 'run `switchyard compile` and fix what it reports',
    };
    const code = e?.errors?.[0]?.code ?? e?.code ?? '';
    const summary = details.length
      ? `${this.host} refused the request (${status} ${e?.code ?? ''}):`
      : `${this.host} answered ${status} ${e?.code ?? ''}: ${message}`;
    return new CliError(summary.replace(/ {2,}/g, ' ').replace(' )', ')'), next[code] ?? 'fix what the message says and run the command again', details);
  }
}
