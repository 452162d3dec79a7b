/**
 * @module features/actions/runs — action runs: input, status, output or error, and the run's log. The
 * activity writes the result here before the workflow ends, so no result is lost to a crash and
 * `GET /action/:id` can answer later.
 */
import type { Queryable } from '../../lib/db/pool.js';

export interface ActionFailure {
  status: number;
  code: string;
  message: string;
  payload?: unknown;
  upstream?: { status: number; headers: Record<string, unknown>; body: unknown };
}

export interface ActionRun {
  id: string;
  environmentId: number;
  connectionPk: number | null;
  integration: string;
  connectionId: string;
  actionName: string;
  input: unknown;
  isAsync: boolean;
  /** How many times a failed run is tried again (X-Max-Retries). */
  maxRetries: number;
  /** The agent session that made the call (MCP), if any. */
  agentSessionId: string | null;
  status: 'running' | 'success' | 'failed';
  output: unknown;
  error: ActionFailure | null;
  logs: { at: string; level: string; message: string; fields?: unknown }[];
  createdAt: Date;
  finishedAt: Date | null;
}

interface Row {
  id: string;
  environment_id: number;
  connection_pk: number | null;
  integration: string;
  connection_id: string;
  action_name: string;
  input: unknown;
  is_async: boolean;
  max_retries: number;
  agent_session_id: string | null;
  status: ActionRun['status'];
  output: unknown;
  error: ActionFailure | null;
  logs: ActionRun['logs'];
  created_at: Date;
  finished_at: Date | null;
}

function fromRow(r: Row): ActionRun {
  return {
    id: r.id,
    environmentId: r.environment_id,
    connectionPk: r.connection_pk,
    integration: r.integration,
    connectionId: r.connection_id,
    actionName: r.action_name,
    input: r.input,
    isAsync: r.is_async,
    maxRetries: r.max_retries,
    agentSessionId: r.agent_session_id,
    status: r.status,
    output: r.output,
    error: r.error,
    logs: r.logs,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
  };
}

export async function createActionRun(
  db: Queryable,
  r: Pick<ActionRun, 'id' | 'environmentId' | 'connectionPk' | 'integration' | 'connectionId' | 'actionName' | 'input' | 'isAsync'> &
    Partial<Pick<ActionRun, 'agentSessionId' | 'maxRetries'>>,
): Promise<void> {
  await db.query(
    `INSERT INTO action_runs (id, environment_id, connection_pk, integration, connection_id, action_name, input, is_async, agent_session_id, max_retries)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      r.id,
      r.environmentId,
      r.connectionPk,
      r.integration,
      r.connectionId,
      r.actionName,
      JSON.stringify(r.input ?? null),
      r.isAsync,
      r.agentSessionId ?? null,
      r.maxRetries ?? 0,
    ],
  );
}

export async function getActionRun(db: Queryable, id: string): Promise<ActionRun | null> {
  const { rows } = await db.query<Row>('SELECT * FROM action_runs WHERE id = $1', [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Where a run's id is announced once its result is committed (features/actions/notices.ts). */
export const ACTION_RUN_FINISHED_CHANNEL = 'switchyard_action_runs';

/**
 * Finishes a run once: a later call (a retried activity) does not overwrite the first result. With
 * `announce` the same statement announces it (Postgres sends the notice once the commit is done),
 * so a caller waiting for the run can answer without waiting for the rest of its workflow; a run
 * with follow-ups still to start is not announced.
 */
export async function finishActionRun(db: Queryable, id: string, result: { output: unknown } | { error: ActionFailure }, announce = true): Promise<boolean> {
  const { rows } = await db.query(
    `WITH done AS (
       UPDATE action_runs SET status = $2, output = $3, error = $4, finished_at = now() WHERE id = $1 AND status = 'running' RETURNING id
     )
     SELECT CASE WHEN $5 THEN pg_notify('${ACTION_RUN_FINISHED_CHANNEL}', id::text) END FROM done`,
    'output' in result ? [id, 'success', JSON.stringify(result.output ?? null), null, announce] : [id, 'failed', null, JSON.stringify(result.error), announce],
  );
  return rows.length > 0;
}

export async function appendActionLog(db: Queryable, id: string, entry: { level: string; message: string; fields?: unknown }): Promise<void> {
  await db.query(`UPDATE action_runs SET logs = logs || jsonb_build_array($2::jsonb) WHERE id = $1`, [
    id,
    JSON.stringify({ at: new Date().toISOString(), ...entry }),
  ]);
}
