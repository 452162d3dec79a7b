/**
 * @module api/routes/app-auth — a GitHub App's Setup URL (Nango's `GET /app-auth/connect`): GitHub
 * sends the browser here after the installation page with `installation_id`, `setup_action` and the
 * `state` the flow started with (connect.ts, startAppInstallation); the connection is made from the
 * installation id, its first installation token fetched with the app's own JWT (github-app.ts).
 */
import { z } from 'zod';
import { getConnectSessionById } from '../../features/connections/connect-sessions.js';
import { consumeOAuthSession } from '../../features/connections/oauth-sessions.js';
import { providerOf } from '../../features/connections/target.js';
import { verifiedConfigKeys } from '../../features/connections/create.js';
import { environmentNameById, findEnvironmentByName } from '../../features/environments/store.js';
import { getIntegrationById } from '../../features/integrations/store.js';
import { defineRoute, html, redirect } from '../route.js';
import { query } from '../validate.js';
import { describeFailure, emptySession, finishConnection, flowFailure, installationOf, withoutFlowSettings } from './connect.js';
import { callbackPage } from './oauth-callback-page.js';

// Checked in the handler, so that a browser always gets the HTML page that reports to the opener.
const appCallbackQuery = z.object({
  installation_id: z.string().optional(),
  setup_action: z.string().optional(),
  state: z.string().optional(),
});

export const appAuthCallback = defineRoute({
  method: 'get',
  path: '/app-auth/connect',
  operationId: 'appAuthCallback',
  summary: "A GitHub App's Setup URL: makes the connection from the installation id and reports to the opener",
  description:
    "Set it as the GitHub App's Setup URL. Without `state` (an installation approved or changed on GitHub itself, not from a connect flow) it sends the browser back to GitHub.",
  tag: 'connect',
  auth: 'none',
  handlerParses: { query: appCallbackQuery },
  responses: {
    200: html('Connected (HTML page that reports to the opener)'),
    302: redirect('Back to GitHub: no connect flow started this installation'),
    400: html('The connection failed (HTML page that reports to the opener)'),
  },
  errors: [],
}).handle(async ({ deps }, c) => {
  let q: z.infer<typeof appCallbackQuery>;
  try {
    q = query(c, appCallbackQuery);
  } catch (err) {
    return c.html(callbackPage({ ok: false, errorType: 'invalid_query', message: err instanceof Error ? err.message : 'The query is not valid' }), 400);
  }
  if (!q.state) {
    if (q.setup_action === 'install' || q.setup_action === 'update') return c.redirect('https://github.com', 302);
    return c.html(callbackPage({ ok: false, errorType: 'missing_state', message: 'This installation did not come from a connect flow.' }), 400);
  }
  const session = /^[0-9a-f-]{36}$/i.test(q.state) ? await consumeOAuthSession(deps.db, q.state, deps.clock.now()) : null;
  if (!session) {
    const message = 'This installation is unknown, expired or was already used. Start the connection again.';
    return c.html(callbackPage({ ok: false, errorType: 'invalid_state', message }), 400);
  }
  const integration = await getIntegrationById(deps.db, deps.box, session.integrationId);
  const pck = integration?.uniqueKey ?? '';
  const fail = flowFailure(deps, c, session, pck);
  if (integration?.credentials?.type !== 'APP') return fail('missing_credentials', `Integration ${pck} has no GitHub App id and private key`);
  const installationId = installationOf(q);
  if (typeof installationId !== 'string') return fail(installationId.type, installationId.message);
  try {
    const provider = await providerOf(deps.db, session.environmentId, integration.provider);
    if (provider.authMode !== 'APP') return fail('invalid_auth_mode', `${provider.displayName} is not a GitHub App`);
    const environment = (await findEnvironmentByName(deps.db, (await environmentNameById(deps.db, session.environmentId))!))!;
    const started = session.connectSessionId ? await getConnectSessionById(deps.db, session.connectSessionId) : null;
    const connectionConfig = { ...session.connectionConfig, installation_id: installationId, app_id: integration.credentials.client_id };
    // The installation id came through the browser: not verified (webhook routing trusts only verified keys).
    const connection = await finishConnection(
      deps,
      {
        environment,
        session: (started && withoutFlowSettings(started)) ?? emptySession(session.environmentId),
        integration,
        connectionId: session.connectionId,
        connectionConfig,
        verifiedConfigKeys: verifiedConfigKeys(connectionConfig, started?.integrationsConfigDefaults?.[pck]?.connection_config ?? {}),
      },
      { type: 'APP' },
    );
    deps.authSockets.publish(session.wsClientId, {
      message_type: 'success',
      provider_config_key: pck,
      connection_id: connection.connectionId,
      is_pending: false,
    });
    return c.html(callbackPage({ ok: true, providerConfigKey: pck, connectionId: connection.connectionId }));
  } catch (err) {
    const { type, message } = describeFailure(err);
    return fail(type, message);
  }
});
