/**
 * @module integrations/checkr-partner/workflows/background-check — follows one Checkr background check (an invitation, then
 * its report) from the trigger to a final state: complete, canceled or expired. Checkr webhooks
 * arrive as signals (checkrEventSignal); when none comes for `pollIntervalMs`, the workflow polls
 * `GET /v1/invitations/:id` (and the report). Each change of the check updates its
 * `BackgroundCheck` record and emits an event to the developer.
 */
import { condition, continueAsNew, log, proxyActivities, setHandler } from '@temporalio/workflow';
import { applyFacts, checkStatusOf, isFinal, type CheckSnapshot } from '../status.js';
import {
  checkrEventSignal,
  type BackgroundCheckActivities,
  type BackgroundCheckInput,
  type BackgroundCheckResult,
  type CheckrEventSignal,
} from './contracts.js';

// A poll that keeps failing (Checkr down, token revoked) gives up for this round; the next round polls again.
const { pollBackgroundCheck } = proxyActivities<BackgroundCheckActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10 },
});

const { reportBackgroundCheck } = proxyActivities<BackgroundCheckActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 30 },
});

/** Rounds per run before continue-as-new keeps the history short (a check can take weeks). */
const ROUNDS_PER_RUN = 500;

function changed(a: CheckSnapshot, b: CheckSnapshot): boolean {
  return (
    a.invitationStatus !== b.invitationStatus ||
    a.invitationDeleted !== b.invitationDeleted ||
    a.reportId !== b.reportId ||
    a.reportStatus !== b.reportStatus ||
    a.result !== b.result
  );
}

export async function backgroundCheckWorkflow(input: BackgroundCheckInput): Promise<BackgroundCheckResult> {
  let current: CheckSnapshot = input.snapshot ?? {
    invitationId: input.invitationId,
    invitationStatus: 'pending',
    invitationDeleted: false,
    reportId: null,
    reportStatus: null,
    result: null,
  };
  const inbox: CheckrEventSignal[] = [];
  setHandler(checkrEventSignal, (event) => {
    inbox.push(event);
  });

  for (let round = 1; ; round++) {
    const signalled = await condition(() => inbox.length > 0, input.pollIntervalMs);
    let next = current;
    if (signalled) {
      for (const event of inbox.splice(0)) next = applyFacts(next, event);
    } else {
      try {
        const polled = await pollBackgroundCheck({ connectionPk: input.connectionPk, invitationId: input.invitationId });
        if (polled.stopped) return { status: checkStatusOf(current), snapshot: current, stopped: polled.stopped };
        next = applyFacts(next, polled);
      } catch (err) {
        log.warn('polling the background check failed; trying again next round', { invitationId: input.invitationId, error: String(err) });
      }
    }
    if (changed(current, next)) {
      await reportBackgroundCheck({
        connectionPk: input.connectionPk,
        integration: input.integration,
        connectionId: input.connectionId,
        snapshot: next,
        previousStatus: checkStatusOf(current),
        source: signalled ? 'webhook' : 'poll',
      });
    }
    current = next;
    const status = checkStatusOf(current);
    if (isFinal(status)) return { status, snapshot: current };
    if (round >= ROUNDS_PER_RUN && inbox.length === 0) {
      await continueAsNew<typeof backgroundCheckWorkflow>({ ...input, snapshot: current });
    }
  }
}
