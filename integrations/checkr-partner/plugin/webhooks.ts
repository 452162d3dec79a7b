/**
 * @module integrations/checkr-partner/plugin/webhooks — Checkr's webhooks: the `X-Checkr-Signature` (hex
 * HMAC-SHA256 of the raw body with the integration's client secret, or its webhook secret) is checked
 * in constant time and a bad or missing one is refused with 401 (Nango only logs it); the event is
 * routed by `account_id` to the connections whose `connection_config.checkr_account_id` matches, as
 * Checkr's token response returned it (features/webhooks/routing: a value the end user typed does not
 * count) (`token.deauthorized` by its access code); for each, the check's `BackgroundCheck` record is updated
 * and, once the event is forwarded to the developer, the check's backgroundCheckWorkflow is signalled.
 */
import { constantTimeEqual, hmacSha256Hex } from '../../../lib/crypto.js';
import { Unauthorized } from '../../../lib/errors.js';
import { connectionsOfIntegration } from '../../../features/connections/store.js';
import { connectionsRoutedBy } from '../../../features/webhooks/routing.js';
import type { Integration } from '../../../features/integrations/store.js';
import type { ProviderWebhooks, WorkflowSignal } from '../../plugin.js';
import { backgroundCheckWorkflowId, checkrEventSignal, type CheckrEventSignal } from '../workflows/contracts.js';
import { applyCheckrObject } from './background-checks.js';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The event's `data.object`, if it is an object. */
function objectOf(event: Record<string, unknown>): Record<string, unknown> | null {
  const data = event.data;
  return isRecord(data) && isRecord(data.object) ? data.object : null;
}

/** The secrets a Checkr webhook may be signed with: the partner app's client secret (and a webhook secret, if set). */
function checkrSecrets(integration: Integration): string[] {
  return [integration.credentials?.client_secret, integration.credentials?.webhook_secret].filter((s): s is string => Boolean(s));
}

export const checkrWebhooks: ProviderWebhooks = {
  verify(_deps, req, integration) {
    const header = req.header('x-checkr-signature');
    const secrets = checkrSecrets(integration);
    if (!header) throw new Unauthorized('webhook_missing_signature', 'The X-Checkr-Signature header is missing');
    if (secrets.length === 0) throw new Unauthorized('webhook_invalid_signature', 'The integration has no client secret to verify Checkr webhooks with');
    const given = header.trim().toLowerCase();
    let ok = false;
    for (const secret of secrets) if (constantTimeEqual(hmacSha256Hex(secret, req.raw), given)) ok = true;
    if (!ok) throw new Unauthorized('webhook_invalid_signature', 'The X-Checkr-Signature does not match the body');
  },

  async route(deps, integration, event) {
    const object = objectOf(event) ?? {};
    if (event.type === 'token.deauthorized' && typeof object.access_code === 'string') {
      // account_id is the partner's own account here; the token names the connection.
      const accessCode = object.access_code;
      return (await connectionsOfIntegration(deps.db, deps.box, integration.id)).filter(
        (c) => c.credentials.type === 'OAUTH2' && constantTimeEqual(c.credentials.access_token, accessCode),
      );
    }
    if (typeof event.account_id !== 'string' || event.account_id === '') return [];
    return connectionsRoutedBy(deps, integration, 'checkr_account_id', event.account_id);
  },

  async apply(deps, { env, connection }, event) {
    const object = objectOf(event);
    const check = object ? await applyCheckrObject(deps.db, connection.id, object) : null;
    if (!check) return [];
    // Best effort: a lost signal is made up for by the workflow's polling.
    const signal: CheckrEventSignal = {
      eventId: typeof event.id === 'string' ? event.id : null,
      type: typeof event.type === 'string' ? event.type : 'unknown',
      ...(check.invitation ? { invitation: check.invitation } : {}),
      ...(check.report ? { report: check.report } : {}),
    };
    const signals: WorkflowSignal[] = [
      { workflowId: backgroundCheckWorkflowId(env.name, connection.connectionId, check.invitationId), signal: checkrEventSignal, args: [signal] },
    ];
    return signals;
  },
};
