/**
 * @module features/webhooks/settings — an environment's webhook, alert and OTLP settings, and its webhook
 * signing key (generated at first use, rotated with a 24 h grace period for the previous key).
 */
import type { SecretBox } from '../../lib/crypto.js';
import { randomToken, rowAad } from '../../lib/crypto.js';
import { withTransaction, type Db, type Queryable } from '../../lib/db/pool.js';
import type { EnvironmentOtlpTarget } from '../../lib/otel/env-router.js';

export const SIGNING_KEY_GRACE_HOURS = 24;

export interface WebhookEventToggles {
  auth: boolean;
  sync: boolean;
  async_action: boolean;
  /** Send sync webhooks for runs that changed nothing too. */
  on_sync_completion_always: boolean;
}

export interface OtlpHeader {
  name: string;
  value: string;
}

export interface EnvironmentSettings {
  webhookUrl: string | null;
  secondaryWebhookUrl: string | null;
  events: WebhookEventToggles;
  alertWebhookUrl: string | null;
  otlpEndpoint: string | null;
  otlpHeaders: OtlpHeader[];
  /** Most requests per second to each webhook URL; null: SWITCHYARD_WEBHOOK_MAX_PER_SECOND (features/webhooks/throttle.ts). */
  webhookMaxPerSecond: number | null;
}

export interface SettingsPatch {
  webhookUrl?: string | null;
  secondaryWebhookUrl?: string | null;
  events?: Partial<WebhookEventToggles>;
  alertWebhookUrl?: string | null;
  otlpEndpoint?: string | null;
  otlpHeaders?: OtlpHeader[] | null;
  webhookMaxPerSecond?: number | null;
}

interface Row {
  webhook_url: string | null;
  secondary_webhook_url: string | null;
  send_auth_webhooks: boolean;
  send_sync_webhooks: boolean;
  send_async_action_webhooks: boolean;
  on_sync_completion_always: boolean;
  alert_webhook_url: string | null;
  otlp_endpoint: string | null;
  otlp_headers_enc: string | null;
  webhook_max_per_second: number | null;
}

export const DEFAULT_EVENTS: WebhookEventToggles = { auth: true, sync: true, async_action: true, on_sync_completion_always: false };

const aadOf = (environmentId: number, column: string) => rowAad('environment_settings', column, environmentId);

function fromRow(box: SecretBox, environmentId: number, row: Row | undefined): EnvironmentSettings {
  if (!row)
    return {
      webhookUrl: null,
      secondaryWebhookUrl: null,
      events: { ...DEFAULT_EVENTS },
      alertWebhookUrl: null,
      otlpEndpoint: null,
      otlpHeaders: [],
      webhookMaxPerSecond: null,
    };
  return {
    webhookUrl: row.webhook_url,
    secondaryWebhookUrl: row.secondary_webhook_url,
    events: {
      auth: row.send_auth_webhooks,
      sync: row.send_sync_webhooks,
      async_action: row.send_async_action_webhooks,
      on_sync_completion_always: row.on_sync_completion_always,
    },
    alertWebhookUrl: row.alert_webhook_url,
    otlpEndpoint: row.otlp_endpoint,
    otlpHeaders: row.otlp_headers_enc ? box.decryptJson<OtlpHeader[]>(row.otlp_headers_enc, aadOf(environmentId, 'otlp_headers_enc')) : [],
    webhookMaxPerSecond: row.webhook_max_per_second,
  };
}

async function ensureRow(db: Queryable, environmentId: number): Promise<void> {
  await db.query('INSERT INTO environment_settings (environment_id) VALUES ($1) ON CONFLICT (environment_id) DO NOTHING', [environmentId]);
}

// Read at every emit: prepared once per connection, its columns listed so that a migration adding one keeps the result's type.
const SELECT_SETTINGS = {
  name: 'switchyard-webhook-settings-of',
  text: `SELECT environment_id, webhook_url, secondary_webhook_url, send_auth_webhooks, send_sync_webhooks, send_async_action_webhooks, on_sync_completion_always,
                alert_webhook_url, otlp_endpoint, otlp_headers_enc, webhook_max_per_second
           FROM environment_settings WHERE environment_id = ANY($1::int[])`,
};

export async function getSettings(db: Queryable, box: SecretBox, environmentId: number): Promise<EnvironmentSettings> {
  return (await settingsOf(db, [{ box, environmentId }]))[0]!;
}

/** getSettings of several environments in one statement, in the order asked. */
export async function settingsOf(db: Queryable, wanted: { box: SecretBox; environmentId: number }[]): Promise<EnvironmentSettings[]> {
  const { rows } = await db.query<Row & { environment_id: number }>({ ...SELECT_SETTINGS, values: [wanted.map((w) => w.environmentId)] });
  const byId = new Map(rows.map((r) => [r.environment_id, r]));
  return wanted.map((w) => fromRow(w.box, w.environmentId, byId.get(w.environmentId)));
}

/** Applies the fields present in `patch` (null clears a URL or the headers) and returns the result. */
export async function updateSettings(db: Queryable, box: SecretBox, environmentId: number, patch: SettingsPatch): Promise<EnvironmentSettings> {
  await ensureRow(db, environmentId);
  const sets: string[] = [];
  const values: unknown[] = [environmentId];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (patch.webhookUrl !== undefined) set('webhook_url', patch.webhookUrl);
  if (patch.secondaryWebhookUrl !== undefined) set('secondary_webhook_url', patch.secondaryWebhookUrl);
  if (patch.alertWebhookUrl !== undefined) set('alert_webhook_url', patch.alertWebhookUrl);
  if (patch.otlpEndpoint !== undefined) set('otlp_endpoint', patch.otlpEndpoint);
  if (patch.otlpHeaders !== undefined)
    set(
      'otlp_headers_enc',
      patch.otlpHeaders && patch.otlpHeaders.length ? box.encryptJson(patch.otlpHeaders, aadOf(environmentId, 'otlp_headers_enc')) : null,
    );
  if (patch.webhookMaxPerSecond !== undefined) set('webhook_max_per_second', patch.webhookMaxPerSecond);
  const e = patch.events ?? {};
  if (e.auth !== undefined) set('send_auth_webhooks', e.auth);
  if (e.sync !== undefined) set('send_sync_webhooks', e.sync);
  if (e.async_action !== undefined) set('send_async_action_webhooks', e.async_action);
  if (e.on_sync_completion_always !== undefined) set('on_sync_completion_always', e.on_sync_completion_always);
  if (sets.length) await db.query(`UPDATE environment_settings SET ${sets.join(', ')}, updated_at = now() WHERE environment_id = $1`, values);
  return getSettings(db, box, environmentId);
}

export interface ActiveSigningKeys {
  current: string;
  /** The key before the last rotation while its grace period lasts, else null. */
  previous: string | null;
  previousExpiresAt: Date | null;
}

function newSigningKey(): string {
  return randomToken(32);
}

/** The keys that sign webhooks now. The first call for an environment generates its key. */
export async function signingKeys(db: Queryable, box: SecretBox, environmentId: number): Promise<ActiveSigningKeys> {
  const read = async () => {
    const { rows } = await db.query<{ cur: string | null; prev: string | null; prev_expires: Date | null }>(
      `SELECT webhook_signing_key_enc AS cur,
              CASE WHEN previous_signing_key_expires_at > now() THEN previous_signing_key_enc END AS prev,
              CASE WHEN previous_signing_key_expires_at > now() THEN previous_signing_key_expires_at END AS prev_expires
         FROM environment_settings WHERE environment_id = $1`,
      [environmentId],
    );
    return rows[0];
  };
  let row = await read();
  if (!row?.cur) {
    await ensureRow(db, environmentId);
    // Only the first writer wins; everyone then reads the same key.
    await db.query('UPDATE environment_settings SET webhook_signing_key_enc = $2 WHERE environment_id = $1 AND webhook_signing_key_enc IS NULL', [
      environmentId,
      box.encrypt(newSigningKey(), aadOf(environmentId, 'webhook_signing_key_enc')),
    ]);
    row = await read();
  }
  return {
    current: box.decrypt(row!.cur!, aadOf(environmentId, 'webhook_signing_key_enc')),
    previous: row!.prev ? box.decrypt(row!.prev, aadOf(environmentId, 'previous_signing_key_enc')) : null,
    previousExpiresAt: row!.prev_expires,
  };
}

/**
 * Replaces the signing key. The old one keeps signing alongside the new one (in
 * X-Switchyard-Signature-V2) for SIGNING_KEY_GRACE_HOURS, so receivers can switch over.
 */
export async function rotateSigningKey(db: Db, box: SecretBox, environmentId: number): Promise<string> {
  return withTransaction(db, async (tx) => {
    await ensureRow(tx, environmentId);
    const { rows } = await tx.query<{ cur: string | null }>(
      'SELECT webhook_signing_key_enc AS cur FROM environment_settings WHERE environment_id = $1 FOR UPDATE',
      [environmentId],
    );
    const key = newSigningKey();
    // The old key moves to the other column, so it is sealed again for that column.
    const previous = rows[0]?.cur
      ? box.encrypt(box.decrypt(rows[0].cur, aadOf(environmentId, 'webhook_signing_key_enc')), aadOf(environmentId, 'previous_signing_key_enc'))
      : null;
    await tx.query(
      `UPDATE environment_settings
          SET webhook_signing_key_enc = $2,
              previous_signing_key_enc = $3,
              previous_signing_key_expires_at = CASE WHEN $3::text IS NULL THEN NULL ELSE now() + make_interval(hours => $4) END,
              updated_at = now()
        WHERE environment_id = $1`,
      [environmentId, box.encrypt(key, aadOf(environmentId, 'webhook_signing_key_enc')), previous, SIGNING_KEY_GRACE_HOURS],
    );
    return key;
  });
}

/**
 * Every environment with its own OTLP endpoint, headers decrypted: what lib/otel/env-router.ts
 * exports each environment's spans to (start/platform.ts hands it this reader).
 */
export async function environmentOtlpTargets(db: Queryable, box: SecretBox): Promise<EnvironmentOtlpTarget[]> {
  const { rows } = await db.query<{ name: string; environment_id: number; otlp_endpoint: string; otlp_headers_enc: string | null }>(
    `SELECT e.name, s.environment_id, s.otlp_endpoint, s.otlp_headers_enc
       FROM environment_settings s JOIN environments e ON e.id = s.environment_id
      WHERE s.otlp_endpoint IS NOT NULL AND s.otlp_endpoint <> ''`,
  );
  return rows.map((row) => {
    const headers = row.otlp_headers_enc ? box.decryptJson<OtlpHeader[]>(row.otlp_headers_enc, aadOf(row.environment_id, 'otlp_headers_enc')) : [];
    return { environment: row.name, endpoint: row.otlp_endpoint, headers: Object.fromEntries(headers.map((h) => [h.name, h.value])) };
  });
}
