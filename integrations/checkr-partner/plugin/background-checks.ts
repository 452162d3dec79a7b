/**
 * @module integrations/checkr-partner/plugin/background-checks — the `BackgroundCheck` records that Checkr webhooks and
 * backgroundCheckWorkflow keep current, and the start of that workflow after a trigger.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { applyFacts, type CheckSnapshot, type InvitationFacts, type ReportFacts } from '../status.js';
import { checkFields, toBackgroundCheck, type BackgroundCheck, type CheckrInvitation } from '../models.js';
import type { Queryable } from '../../../lib/db/pool.js';
import { findRecordData, getRecordData, saveRecords } from '../../../features/records/store.js';
import { searchAttributesFor, startWorkflow, taskQueueFor } from '../../../workflows/contracts.js';
import { backgroundCheckWorkflowId, type BackgroundCheckInput } from '../workflows/contracts.js';

export const MODEL = 'BackgroundCheck';
export const DEFAULT_POLL_INTERVAL_MS = 60 * 60 * 1000;

/**
 * How often backgroundCheckWorkflow polls Checkr when no webhook comes. Read when a workflow
 * starts (tests shorten it with SWITCHYARD_BGCHECK_POLL_INTERVAL_MS) and carried in its input.
 */
export function pollIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.SWITCHYARD_BGCHECK_POLL_INTERVAL_MS);
  return Number.isFinite(n) && n >= 100 ? n : DEFAULT_POLL_INTERVAL_MS;
}

export async function getCheckRecord(db: Queryable, connectionPk: number, invitationId: string): Promise<BackgroundCheck | null> {
  return getRecordData<BackgroundCheck>(db, connectionPk, MODEL, invitationId);
}

/** The check a report belongs to: by report id, else the undecided invitation of the same candidate and package. */
export async function findCheckOfReport(
  db: Queryable,
  connectionPk: number,
  report: ReportFacts & { candidate_id?: string; package?: string },
): Promise<BackgroundCheck | null> {
  return (
    (await findRecordData<BackgroundCheck>(db, connectionPk, MODEL, { report_id: report.id })) ??
    (await findRecordData<BackgroundCheck>(db, connectionPk, MODEL, {
      report_id: null,
      candidate_id: report.candidate_id ?? '',
      service_key: report.package ?? '',
    }))
  );
}

export function snapshotOfRecord(r: BackgroundCheck): CheckSnapshot {
  return {
    invitationId: r.id,
    invitationStatus: r.status,
    invitationDeleted: r.status === 'expired' && r.check_status === 'canceled' && r.report_status !== 'canceled',
    reportId: r.report_id ?? null,
    reportStatus: r.report_status ?? null,
    result: r.result ?? null,
  };
}

/** Writes a snapshot into the check's record (merged: the record's other fields stay). */
export async function saveSnapshot(
  db: Queryable,
  connectionPk: number,
  s: CheckSnapshot,
  extra: Partial<BackgroundCheck> = {},
  known?: BackgroundCheck | null,
): Promise<boolean> {
  const current = known !== undefined ? known : await getCheckRecord(db, connectionPk, s.invitationId);
  if (!current && !extra.service_key) return false; // too little known to create it; the sync will
  const record = { ...current, ...extra, id: s.invitationId, status: s.invitationStatus, ...checkFields(s) } as BackgroundCheck;
  const result = await saveRecords(db, connectionPk, MODEL, [record], { merge: true });
  return result.added + result.updated > 0;
}

/**
 * Applies a Checkr object (webhook `data.object`) to the records: an invitation creates or updates
 * its check; a report updates the check it belongs to. Returns the check's invitation id and the
 * facts to signal, or null when the object is not about a check.
 */
export async function applyCheckrObject(
  db: Queryable,
  connectionPk: number,
  object: Record<string, unknown>,
): Promise<{ invitationId: string; invitation?: InvitationFacts; report?: ReportFacts } | null> {
  if (object.object === 'invitation' && typeof object.id === 'string' && typeof object.status === 'string') {
    const invitation = object as unknown as CheckrInvitation;
    const facts: InvitationFacts = {
      id: invitation.id,
      status: invitation.status,
      deleted_at: invitation.deleted_at ?? null,
      report_id: invitation.report_id ?? null,
    };
    const current = await getCheckRecord(db, connectionPk, invitation.id);
    const next = applyFacts(current ? snapshotOfRecord(current) : pendingSnapshot(invitation.id), { invitation: facts });
    await saveSnapshot(db, connectionPk, next, toBackgroundCheck(invitation), current);
    return { invitationId: invitation.id, invitation: facts };
  }
  if (object.object === 'report' && typeof object.id === 'string' && typeof object.status === 'string') {
    const report = { id: object.id, status: object.status, result: typeof object.result === 'string' ? object.result : null };
    const check = await findCheckOfReport(db, connectionPk, {
      ...report,
      candidate_id: typeof object.candidate_id === 'string' ? object.candidate_id : undefined,
      package: typeof object.package === 'string' ? object.package : undefined,
    });
    if (!check) return null;
    const next = applyFacts(snapshotOfRecord(check), { report });
    await saveSnapshot(db, connectionPk, next, {}, check);
    return { invitationId: check.id, report };
  }
  return null;
}

export function pendingSnapshot(invitationId: string): CheckSnapshot {
  return { invitationId, invitationStatus: 'pending', invitationDeleted: false, reportId: null, reportStatus: null, result: null };
}

/** Starts the check's workflow; one already started (or finished) counts as started. */
export async function startBackgroundCheckWorkflow(
  temporal: Client,
  taskQueuePrefix: string,
  target: { env: string; connectionPk: number; integration: string; connectionId: string; invitationId: string },
): Promise<string> {
  const workflowId = backgroundCheckWorkflowId(target.env, target.connectionId, target.invitationId);
  const input: BackgroundCheckInput = {
    connectionPk: target.connectionPk,
    integration: target.integration,
    connectionId: target.connectionId,
    invitationId: target.invitationId,
    pollIntervalMs: pollIntervalMs(),
  };
  try {
    await startWorkflow(temporal, 'backgroundCheckWorkflow', {
      workflowId,
      taskQueue: taskQueueFor(taskQueuePrefix, target.env),
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: searchAttributesFor({
        environment: target.env,
        integration: target.integration,
        connection: target.connectionId,
        script: 'background-check',
      }),
      staticSummary: `Background check ${target.invitationId} of ${target.integration}/${target.connectionId}`,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  return workflowId;
}
