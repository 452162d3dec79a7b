/**
 * @module integrations/checkr-partner/workflows/contracts — backgroundCheckWorkflow's Temporal contract: its
 * input and result, the signal a Checkr webhook sends to the workflow of its check, its id and the
 * activities it calls. Pure: the workflow, the plugin and workflows/contracts.ts import it.
 */
import { defineSignal } from '@temporalio/workflow';
import type { CheckSnapshot, InvitationFacts, ReportFacts } from '../status.js';

export interface BackgroundCheckInput {
  connectionPk: number;
  integration: string;
  connectionId: string;
  invitationId: string;
  pollIntervalMs: number;
  /** Where the check stood, carried over continue-as-new. */
  snapshot?: CheckSnapshot;
}

export interface BackgroundCheckResult {
  status: string;
  snapshot: CheckSnapshot;
  /** Why the workflow stopped before a final state (the connection or the invitation is gone). */
  stopped?: string;
}

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

/** The activities backgroundCheckWorkflow calls (implemented by the plugin: plugin/activities.ts; a type, so it fits the plugins' activity map). */
export type BackgroundCheckActivities = {
  /** The invitation and its report as Checkr has them now; `stopped` when the connection or the invitation is gone. */
  pollBackgroundCheck(input: { connectionPk: number; invitationId: string }): Promise<{ stopped?: string; invitation?: InvitationFacts; report?: ReportFacts }>;
  /** A change of the check: its record is updated and a `sync` event (syncType WEBHOOK) tells the developer. */
  reportBackgroundCheck(input: {
    connectionPk: number;
    integration: string;
    connectionId: string;
    snapshot: CheckSnapshot;
    previousStatus: string;
    source: 'webhook' | 'poll';
  }): Promise<void>;
};
