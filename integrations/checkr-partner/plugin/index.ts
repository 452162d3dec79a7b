/**
 * @module integrations/checkr-partner/plugin — Checkr's platform-side code behind the provider plugin
 * interface (integrations/plugin.ts): signed webhooks routed by account, the Account Hierarchy probe
 * after connecting, backgroundCheckWorkflow after `trigger-background-check`, and that workflow's activities.
 */
import type { ProviderPlugin } from '../../plugin.js';
import { CHECKR_PROVIDERS } from '../index.js';
import { recordAccountHierarchy } from './account-hierarchy.js';
import { backgroundCheckActivities, startBackgroundCheckAfterTrigger } from './activities.js';
import { checkrWebhooks } from './webhooks.js';

export const checkrPlugin: ProviderPlugin = {
  providers: CHECKR_PROVIDERS,
  webhooks: checkrWebhooks,
  afterConnect: recordAccountHierarchy,
  afterAction: startBackgroundCheckAfterTrigger,
  activities: backgroundCheckActivities,
  // Checkr takes the access token as the HTTP Basic user name with an empty password.
  authorize: (credentials) => (credentials.type === 'OAUTH2' ? { type: 'basic', username: credentials.access_token, password: '' } : undefined),
};
