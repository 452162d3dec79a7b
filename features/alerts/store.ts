/**
 * @module features/alerts/store — the alerts table: at most one open alert per environment and cause (a
 * partial unique index), upserted on each failure so repeats count occurrences instead of piling
 * up, and resolved by the next success of the same thing.
 */
import type { Queryable } from '../../lib/db/pool.js';
import { pageQuery, Where } from '../../lib/db/where.js';

export type AlertKind = 'sync_failed' | 'auth_refresh_failed' | 'connection_check_failed' | 'webhook_dead';
export type AlertStatus = 'open' | 'resolved';

export interface Alert {
  id: number;
  environmentId: number;
  cause: string;
  kind: AlertKind;
  status: AlertStatus;
  integration: string | null;
  connectionId: string | null;
  script: string | null;
  message: string;
  details: Record<string, unknown>;
  occurrences: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  resolvedAt: Date | null;
  resolvedBy: string | null;
}

interface Row {
  id: number;
  environment_id: number;
  cause: string;
  kind: AlertKind;
  status: AlertStatus;
  integration: string | null;
  connection_id: string | null;
  script: string | null;
  message: string;
  details: Record<string, unknown>;
  occurrences: number;
  first_seen_at: Date;
  last_seen_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
}

function fromRow(r: Row): Alert {
  return {
    id: r.id,
    environmentId: r.environment_id,
    cause: r.cause,
    kind: r.kind,
    status: r.status,
    integration: r.integration,
    connectionId: r.connection_id,
    script: r.script,
    message: r.message,
    details: r.details,
    occurrences: r.occurrences,
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
    resolvedAt: r.resolved_at,
    resolvedBy: r.resolved_by,
  };
}

const part = (s: string) => encodeURIComponent(s);

/** Cause keys: what one open alert stands for. Parts are URI-encoded, so keys never collide. */
export const causeOf = {
  sync: (integration: string, connectionId: string, syncName: string) => `sync:${part(integration)}:${part(connectionId)}:${part(syncName)}`,
  check: (integration: string, connectionId: string) => `check:${part(integration)}:${part(connectionId)}`,
  auth: (integration: string, connectionId: string) => `auth:${part(integration)}:${part(connectionId)}`,
  /** By target URL (hashed: URLs may carry tokens). */
  webhook: (urlHash: string) => `webhook:${urlHash}`,
};

export interface AlertOccurrence {
  environmentId: number;
  kind: AlertKind;
  cause: string;
  integration?: string | null;
  connectionId?: string | null;
  script?: string | null;
  message: string;
  details?: Record<string, unknown>;
  /** What failed this time (a run id, a delivery id). Reporting the same ref twice counts once. */
  ref?: string | null;
}

/** Opens the cause's alert, or counts one more occurrence on the open one. `created` says which. */
export async function upsertAlert(db: Queryable, o: AlertOccurrence): Promise<{ alert: Alert; created: boolean }> {
  const { rows } = await db.query<Row & { created: boolean }>(
    `INSERT INTO alerts (environment_id, cause, kind, integration, connection_id, script, message, details, last_ref)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (environment_id, cause) WHERE status = 'open' DO UPDATE SET
       occurrences  = alerts.occurrences + CASE WHEN EXCLUDED.last_ref IS NOT NULL AND alerts.last_ref IS NOT DISTINCT FROM EXCLUDED.last_ref THEN 0 ELSE 1 END,
       last_seen_at = CASE WHEN EXCLUDED.last_ref IS NOT NULL AND alerts.last_ref IS NOT DISTINCT FROM EXCLUDED.last_ref THEN alerts.last_seen_at ELSE now() END,
       message = EXCLUDED.message, details = EXCLUDED.details, last_ref = EXCLUDED.last_ref
     RETURNING *, (xmax = 0) AS created`,
    [
      o.environmentId,
      o.cause,
      o.kind,
      o.integration ?? null,
      o.connectionId ?? null,
      o.script ?? null,
      o.message.slice(0, 4000),
      JSON.stringify(o.details ?? {}),
      o.ref ?? null,
    ],
  );
  return { alert: fromRow(rows[0]!), created: rows[0]!.created };
}

/** Resolves the cause's open alert; null when none was open. */
/** Whether the cause has an open alert (one index lookup). */
export async function hasOpenAlert(db: Queryable, environmentId: number, cause: string): Promise<boolean> {
  const { rowCount } = await db.query("SELECT 1 FROM alerts WHERE environment_id = $1 AND cause = $2 AND status = 'open'", [environmentId, cause]);
  return Boolean(rowCount);
}

export async function resolveAlert(db: Queryable, environmentId: number, cause: string, resolvedBy: string | null): Promise<Alert | null> {
  const { rows } = await db.query<Row>(
    `UPDATE alerts SET status = 'resolved', resolved_at = now(), resolved_by = $3
      WHERE environment_id = $1 AND cause = $2 AND status = 'open' RETURNING *`,
    [environmentId, cause, resolvedBy],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface AlertFilter {
  status?: AlertStatus;
  kind?: AlertKind;
  integration?: string;
  connectionId?: string;
  /** Only alerts with a smaller id (the cursor of the previous page). */
  beforeId?: number;
  limit: number;
}

/** Newest first. */
export async function listAlerts(db: Queryable, environmentId: number, f: AlertFilter): Promise<Alert[]> {
  const where = new Where('environment_id = ?', environmentId);
  if (f.status) where.and('status = ?', f.status);
  if (f.kind) where.and('kind = ?', f.kind);
  if (f.integration) where.and('integration = ?', f.integration);
  if (f.connectionId) where.and('connection_id = ?', f.connectionId);
  if (f.beforeId !== undefined) where.and('id < ?', f.beforeId);
  const { rows } = await db.query<Row>(...pageQuery('SELECT * FROM alerts', where, { orderBy: 'id DESC', limit: f.limit }));
  return rows.map(fromRow);
}

/** The API and webhook shape of an alert. */
export function presentAlert(a: Alert) {
  return {
    id: a.id,
    kind: a.kind,
    cause: a.cause,
    status: a.status,
    integration: a.integration,
    connection_id: a.connectionId,
    script: a.script,
    message: a.message,
    details: a.details,
    occurrences: a.occurrences,
    first_seen_at: a.firstSeenAt.toISOString(),
    last_seen_at: a.lastSeenAt.toISOString(),
    resolved_at: a.resolvedAt?.toISOString() ?? null,
    resolved_by: a.resolvedBy,
  };
}
