/**
 * @module checkr-partner/status — where one background check stands, from its invitation and its
 * report. Pure code with no imports: the API, the activities and backgroundCheckWorkflow share it.
 */

/** What Switchyard knows of one check (an invitation and, once the candidate applied, its report). */
export interface CheckSnapshot {
  invitationId: string;
  /** pending | completed | expired */
  invitationStatus: string;
  /** Checkr marks a canceled invitation expired with deleted_at set. */
  invitationDeleted: boolean;
  reportId: string | null;
  /** pending | suspended | paused | complete | canceled | dispute */
  reportStatus: string | null;
  /** clear | consider | null */
  result: string | null;
}

export type CheckStatus = 'pending' | 'in_progress' | 'suspended' | 'paused' | 'dispute' | 'complete' | 'canceled' | 'expired';

export const FINAL_STATUSES: readonly CheckStatus[] = ['complete', 'canceled', 'expired'];

export function checkStatusOf(s: CheckSnapshot): CheckStatus {
  switch (s.reportStatus) {
    case 'complete':
      return 'complete';
    case 'canceled':
      return 'canceled';
    case 'suspended':
    case 'paused':
    case 'dispute':
      return s.reportStatus;
    case 'pending':
      return 'in_progress';
  }
  if (s.invitationStatus === 'expired') return s.invitationDeleted ? 'canceled' : 'expired';
  if (s.invitationStatus === 'completed') return 'in_progress';
  return 'pending';
}

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** The fields of an invitation object this code reads (webhook `data.object` or `GET /v1/invitations/:id`). */
export interface InvitationFacts {
  id: string;
  status: string;
  deleted_at?: string | null;
  report_id?: string | null;
}

/** The fields of a report object this code reads. */
export interface ReportFacts {
  id: string;
  status: string;
  result?: string | null;
}

/**
 * Applies what an event or a poll says. Events can arrive out of order, so a check never goes back:
 * a decided invitation does not return to pending, and a finished report does not reopen.
 */
export function applyFacts(s: CheckSnapshot, facts: { invitation?: InvitationFacts; report?: ReportFacts }): CheckSnapshot {
  const next = { ...s };
  const inv = facts.invitation;
  if (inv && inv.id === s.invitationId && !(s.invitationStatus !== 'pending' && inv.status === 'pending')) {
    next.invitationStatus = inv.status;
    next.invitationDeleted = Boolean(inv.deleted_at);
    if (inv.report_id) next.reportId = inv.report_id;
  }
  const report = facts.report;
  if (report && (next.reportId === null || next.reportId === report.id) && !(s.reportStatus && isFinal(checkStatusOf(s)) && report.status === 'pending')) {
    next.reportId = report.id;
    next.reportStatus = report.status;
    next.result = report.result ?? null;
  }
  return next;
}
