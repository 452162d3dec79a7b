/**
 * @module integrations/checkr-partner/workflows/background-check-signals — the signal a Checkr webhook sends to the
 * backgroundCheckWorkflow of its check. Defined once here; the workflow and the API import it.
 */
import { defineSignal } from '@temporalio/workflow';
import type { InvitationFacts, ReportFacts } from '../status.js';

export interface CheckrEventSignal {
  /** Checkr's event id and type (`invitation.completed`, `report.completed`, …). */
  eventId: string | null;
  type: string;
  invitation?: InvitationFacts;
  report?: ReportFacts;
}

export const checkrEventSignal = defineSignal<[CheckrEventSignal]>('checkrEvent');

/** `bgcheck:{env}:{connection}:{invitation id}`. */
export function backgroundCheckWorkflowId(env: string, connectionId: string, invitationId: string): string {
  return `bgcheck:${env}:${connectionId}:${invitationId}`;
}
