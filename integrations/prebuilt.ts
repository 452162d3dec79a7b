/**
 * @module integrations/prebuilt — the pre-built scripts of each provider, handed to
 * features/scripts/prebuilt by start/platform.ts (`registerAllPrebuiltScripts`).
 */
import type { AnyScriptDefinition } from '../sdk/types.js';
import { registerPrebuiltScripts } from '../features/scripts/prebuilt.js';
import { metabaseScripts } from './metabase/index.js';
import { checkrScripts } from './checkr-partner/index.js';
import { slackScripts } from './slack/index.js';
import { googleDriveScripts } from './google-drive/index.js';

const prebuilt: Record<string, Record<string, AnyScriptDefinition>> = {
  metabase: metabaseScripts,
  'checkr-partner': checkrScripts,
  'checkr-partner-staging': checkrScripts,
  slack: slackScripts,
  'google-drive': googleDriveScripts,
};

export function registerAllPrebuiltScripts(): void {
  for (const [provider, scripts] of Object.entries(prebuilt)) registerPrebuiltScripts(provider, scripts);
}
