/**
 * @module api/routes/index — the route table: every route of the API, in the order Hono matches
 * them. app.ts mounts exactly these; /openapi.json and /docs describe exactly these (less the
 * dashboard's HTML pages). A route registered any other way fails the start (assertDeclared).
 *
 * | Method | Path                                              | Declared in               |
 * |--------|---------------------------------------------------|---------------------------|
 * | GET    | /health                                           | health.ts                 |
 * | POST   | /diagnostics/roundtrip                            | diagnostics.ts            |
 * | GET    | /providers, /providers/:provider                  | providers.ts              |
 * | POST   | /providers                                        | providers.ts              |
 * | PUT    | /providers/:provider                              | providers.ts              |
 * | DELETE | /providers/:provider                              | providers.ts              |
 * | GET    | /integrations                                     | integrations.ts           |
 * | POST   | /integrations                                     | integrations.ts           |
 * | POST   | /integrations/quickstart                          | integrations.ts           |
 * | GET    | /providers/:provider/templates                    | scripts.ts                |
 * | GET    | /integrations/:uniqueKey                          | integrations.ts           |
 * | PATCH  | /integrations/:uniqueKey                          | integrations.ts           |
 * | DELETE | /integrations/:uniqueKey                          | integrations.ts           |
 * | GET    | /integrations/:uniqueKey/endpoints                | integrations.ts           |
 * | PATCH  | /integrations/:uniqueKey/endpoints                | integrations.ts           |
 * | GET    | /integrations/:uniqueKey/functions[/:name[/code]] | functions.ts              |
 * | DELETE | /integrations/:uniqueKey/functions/:name          | functions.ts              |
 * | POST   | /connections                                      | connections.ts            |
 * | GET    | /connections                                      | connections.ts            |
 * | POST   | /connections/metadata                             | connections.ts            |
 * | PATCH  | /connections/metadata                             | connections.ts            |
 * | GET    | /connections/:connectionId                        | connections.ts            |
 * | PATCH  | /connections/:connectionId                        | connections.ts            |
 * | DELETE | /connections/:connectionId                        | connections.ts            |
 * | POST   | /connections/:connectionId/tools/:name/calls      | tools.ts                  |
 * | POST   | /connect/sessions, /connect/sessions/reconnect    | connect.ts                |
 * | GET    | /connect/session                                  | connect.ts                |
 * | DELETE | /connect/session                                  | connect.ts                |
 * | POST   | /api-auth/api-key/:pck, /api-auth/basic/:pck      | connect.ts                |
 * | POST   | /oauth2/auth/:pck, /auth/unauthenticated/:pck     | connect.ts                |
 * | GET    | /oauth/connect/:pck, /oauth/callback              | connect.ts                |
 * | GET    | /app-auth/connect                                 | app-auth.ts               |
 * | POST   | /action/trigger                                   | actions.ts                |
 * | GET    | /action/:id                                       | actions.ts                |
 * | POST   | /functions/invocations                            | function-invocations.ts   |
 * | GET    | /functions/invocations/:id                        | function-invocations.ts   |
 * | POST   | /functions/compile                                | functions-remote.ts       |
 * | POST   | /functions/dryruns, /functions/deployments        | functions-remote.ts       |
 * | GET    | /functions/dryruns/:id, /functions/deployments/:id| functions-remote.ts       |
 * | POST   | /sync/trigger, /sync/start, /sync/pause           | syncs.ts                  |
 * | GET    | /sync/status                                      | syncs.ts                  |
 * | PUT    | /sync/update-connection-frequency                 | syncs.ts                  |
 * | POST   | /sync/:name/variant/:variant                      | syncs.ts                  |
 * | DELETE | /sync/:name/variant/:variant                      | syncs.ts                  |
 * | GET    | /connect-ui, /connect-ui/, /connect-ui/:file      | connect-ui.ts             |
 * | GET    | /sdk.js                                           | connect-ui.ts             |
 * | GET    | /environment                                      | environment.ts            |
 * | PATCH  | /environment                                      | environment.ts            |
 * | POST   | /environment/webhook-signing-key/rotate           | environment.ts            |
 * | GET    | /environments                                     | environments.ts           |
 * | POST   | /environments                                     | environments.ts           |
 * | DELETE | /environments/:environmentId (id or uuid)         | environments.ts           |
 * | POST   | /environment/api-keys                             | api-keys.ts               |
 * | DELETE | /environment/api-keys                             | api-keys.ts               |
 * | GET    | /environments/:environmentUuid/api-keys           | api-keys.ts               |
 * | POST   | /environments/:environmentUuid/api-keys           | api-keys.ts               |
 * | GET    | /environments/:environmentUuid/api-keys/:keyUuid  | api-keys.ts               |
 * | DELETE | /environments/:environmentUuid/api-keys/:keyUuid  | api-keys.ts               |
 * | GET    | /environment-variables                            | environment-variables.ts  |
 * | POST   | /environment-variables                            | environment-variables.ts  |
 * | GET    | /webhook-deliveries                               | webhook-deliveries.ts     |
 * | POST   | /webhook-deliveries/:id/replay                    | webhook-deliveries.ts     |
 * | POST   | /webhook-deliveries/recover                       | webhook-deliveries.ts     |
 * | ALL    | /proxy, /proxy/*                                  | proxy.ts                  |
 * | GET    | /logs                                             | logs.ts                   |
 * | GET    | /logs/scripts (functions' log lines)              | logs.ts                   |
 * | POST   | /scripts/deploy/preview, /scripts/deploy          | scripts.ts                |
 * | GET    | /scripts/config                                   | scripts.ts                |
 * | POST   | /sync/deploy/confirmation, /sync/deploy           | nango-deploy.ts           |
 * | GET    | /alerts                                           | alerts.ts                 |
 * | GET    | /integrations/:uniqueKey/status                   | integration-status.ts     |
 * | ALL    | /connection, /connection/* (removed: 410)         | legacy-connection.ts      |
 * | ALL    | /mcp (the MCP server: POST; others 405)           | mcp.ts                    |
 * | POST   | /agent-sessions                                   | mcp.ts                    |
 * | DELETE | /agent-sessions/:id                               | mcp.ts                    |
 * | POST   | /sessions, DELETE /sessions/:sessionId            | sessions.ts               |
 * | ALL    | /session/:sessionId/mcp (POST; others 405)        | sessions.ts               |
 * | GET    | /openapi.json, /docs, /docs/guide[/:page]         | docs.ts                   |
 * | GET    | /images/logos/:file (`<provider>.svg`)            | logos.ts                  |
 * | GET    | /records, /records/                               | records.ts                |
 * | PATCH  | /records/prune                                    | records.ts                |
 * | POST   | /webhook/:environmentUuid/:pck[/:token]           | provider-webhooks.ts      |
 * | GET    | /integrations/:uniqueKey/webhook-secret           | incoming-webhook-secrets.ts |
 * | POST   | /integrations/:uniqueKey/webhook-secret/rotate    | incoming-webhook-secrets.ts |
 * | GET    | /dashboard, /dashboard/assets/:file               | ../dashboard/index.tsx    |
 * | GET+POST | /dashboard/sign-in; POST /dashboard/:env/sign-out | ../dashboard/index.tsx    |
 * | GET    | /dashboard/:env/ → integrations                   | ../dashboard/index.tsx    |
 * | GET+POST | /dashboard/:env/integrations[/:key[/authorization, /endpoints]], POST …/:key/webhook-secret/rotate | ../dashboard/integrations.tsx |
 * | GET+POST | /dashboard/:env/providers; GET …/providers/:name; POST …/providers/:name/delete | ../dashboard/providers.tsx |
 * | GET    | /dashboard/:env/connections[/:pck/:cid]; POST …/:pck/:cid/syncs/:sync/:op | ../dashboard/connections.tsx |
 * | GET    | /dashboard/:env/logs, /logs/tail (SSE), /runs, /runs/view | ../dashboard/logs.tsx, runs.ts |
 * | GET+POST | /dashboard/:env/webhooks; POST …/webhooks/settings, /rotate-key, /deliveries/:id/replay | ../dashboard/webhooks.tsx |
 *   (the dashboard: HTML pages, a sub-app with its own error pages, left out of the document)
 * | ALL    | * and /v1/* (script endpoints; last)              | unified-endpoints.ts      |
 */
import type { Hono } from 'hono';
import { dashboardRoutes } from '../dashboard/index.js';
import type { AppEnv } from '../context.js';
import { servedPaths, type RouteDef } from '../route.js';
import { getActionResult, triggerActionRoute } from './actions.js';
import { appAuthCallback } from './app-auth.js';
import { listAlertsRoute } from './alerts.js';
import {
  connectUnauthenticated,
  connectWithApiKey,
  connectWithBasic,
  connectWithClientCredentials,
  connectWithTwoStep,
  connectWithTba,
  connectWithSignature,
  connectWithBill,
  createReconnectSession,
  createSession,
  deleteSession,
  getSession,
  oauthCallback,
  startOAuth,
} from './connect.js';
import { browserSdk, connectUiFile, connectUiIndex, connectUiRedirect } from './connect-ui.js';
import {
  createConnection,
  deleteConnectionRoute,
  getConnectionRoute,
  listConnectionsRoute,
  mergeConnectionMetadata,
  replaceConnectionMetadata,
  updateConnection,
} from './connections.js';
import { diagnosticsRoundtrip } from './diagnostics.js';
import { docsRoutes } from './docs.js';
import { getEnvironment, rotateWebhookSigningKey, updateEnvironment } from './environment.js';
import { listEnvironmentVariables, replaceEnvironmentVariables } from './environment-variables.js';
import { createEnvironmentRoute, deleteEnvironmentRoute, listEnvironmentsRoute } from './environments.js';
import { createApiKeyByIdRoute, createApiKeyRoute, deleteApiKeyByIdRoute, deleteApiKeyRoute, getApiKeyRoute, listApiKeysRoute } from './api-keys.js';
import { health } from './health.js';
import { getIncomingWebhookSecret, rotateIncomingWebhookSecretRoute } from './incoming-webhook-secrets.js';
import { getIntegrationStatus } from './integration-status.js';
import {
  createIntegration,
  createQuickstartIntegration,
  deleteIntegrationRoute,
  getIntegrationRoute,
  listIntegrationEndpoints,
  listIntegrationsRoute,
  updateIntegrationEndpoints,
  updateIntegrationRoute,
} from './integrations.js';
import { legacyConnection } from './legacy-connection.js';
import { createProviderRoute, deleteProviderRoute, getProviderRoute, listProvidersRoute, replaceProviderRoute } from './providers.js';
import { listLogs, listScriptLogs } from './logs.js';
import { providerLogo } from './logos.js';
import { receiveProviderWebhookRoute, receiveProviderWebhookWithToken } from './provider-webhooks.js';
import { proxy } from './proxy.js';
import { callToolRoute } from './tools.js';
import { createAgentSessionRoute, deleteAgentSessionRoute, mcpRoute } from './mcp.js';
import { createNangoAgentSession, deleteNangoAgentSession, sessionMcpRoute } from './sessions.js';
import { listRecords, pruneRecordsRoute } from './records.js';
import { deployRoute, previewDeployRoute, providerTemplates, scriptsConfig } from './scripts.js';
import { nangoDeployConfirmationRoute, nangoDeployRoute } from './nango-deploy.js';
import { createFunctionInvocation, getFunctionInvocation } from './function-invocations.js';
import {
  compileFunctionRoute,
  createFunctionDeploymentRoute,
  createFunctionDryrunRoute,
  getFunctionDeploymentRoute,
  getFunctionDryrunRoute,
} from './functions-remote.js';
import { deleteFunctionRoute, getFunctionCodeRoute, getFunctionRoute, listFunctionsRoute } from './functions.js';
import { createSyncVariant, deleteSyncVariant, pauseSyncs, startSyncs, syncStatus, triggerSyncs, updateSyncFrequency } from './syncs.js';
import { unifiedEndpoint } from './unified-endpoints.js';
import { listWebhookDeliveries, recoverWebhookDeliveries, replayWebhookDelivery } from './webhook-deliveries.js';

/** The dashboard: server-rendered HTML pages under /dashboard, a sub-app with its own error pages. Not in the document. */
const dashboard: RouteDef = {
  spec: {
    method: 'all',
    path: '/dashboard',
    mount: '/dashboard',
    operationId: 'dashboard',
    summary: 'The dashboard (HTML pages)',
    tag: 'dashboard',
    auth: 'none',
    responses: {},
    errors: [],
    hidden: true,
  },
  register(app, deps) {
    app.route('/', dashboardRoutes(deps) as unknown as Hono<AppEnv>);
  },
};

export const routeTable: readonly RouteDef[] = [
  health,
  diagnosticsRoundtrip,
  listProvidersRoute,
  getProviderRoute,
  createProviderRoute,
  replaceProviderRoute,
  deleteProviderRoute,
  providerLogo,
  providerTemplates,
  listIntegrationsRoute,
  createIntegration,
  createQuickstartIntegration,
  getIntegrationRoute,
  updateIntegrationRoute,
  deleteIntegrationRoute,
  listIntegrationEndpoints,
  updateIntegrationEndpoints,
  listFunctionsRoute,
  getFunctionRoute,
  getFunctionCodeRoute,
  deleteFunctionRoute,
  createConnection,
  listConnectionsRoute,
  // Before /connections/:connectionId, which would take `metadata` for a connection id.
  replaceConnectionMetadata,
  mergeConnectionMetadata,
  getConnectionRoute,
  updateConnection,
  deleteConnectionRoute,
  callToolRoute,
  createSession,
  createReconnectSession,
  getSession,
  deleteSession,
  connectWithApiKey,
  connectWithBasic,
  connectWithClientCredentials,
  connectWithTwoStep,
  connectWithTba,
  connectWithSignature,
  connectWithBill,
  connectUnauthenticated,
  startOAuth,
  oauthCallback,
  appAuthCallback,
  triggerActionRoute,
  getActionResult,
  createFunctionInvocation,
  getFunctionInvocation,
  compileFunctionRoute,
  createFunctionDryrunRoute,
  getFunctionDryrunRoute,
  createFunctionDeploymentRoute,
  getFunctionDeploymentRoute,
  triggerSyncs,
  startSyncs,
  pauseSyncs,
  syncStatus,
  updateSyncFrequency,
  createSyncVariant,
  deleteSyncVariant,
  connectUiRedirect,
  connectUiIndex,
  connectUiFile,
  browserSdk,
  getEnvironment,
  updateEnvironment,
  rotateWebhookSigningKey,
  listEnvironmentVariables,
  listEnvironmentsRoute,
  createEnvironmentRoute,
  deleteEnvironmentRoute,
  createApiKeyByIdRoute,
  deleteApiKeyByIdRoute,
  listApiKeysRoute,
  createApiKeyRoute,
  getApiKeyRoute,
  deleteApiKeyRoute,
  replaceEnvironmentVariables,
  listWebhookDeliveries,
  replayWebhookDelivery,
  recoverWebhookDeliveries,
  proxy,
  listLogs,
  listScriptLogs,
  previewDeployRoute,
  deployRoute,
  scriptsConfig,
  nangoDeployConfirmationRoute,
  nangoDeployRoute,
  listAlertsRoute,
  getIntegrationStatus,
  legacyConnection,
  mcpRoute,
  createAgentSessionRoute,
  deleteAgentSessionRoute,
  createNangoAgentSession,
  deleteNangoAgentSession,
  sessionMcpRoute,
  ...docsRoutes(() => routeTable),
  listRecords,
  pruneRecordsRoute,
  receiveProviderWebhookRoute,
  receiveProviderWebhookWithToken,
  getIncomingWebhookSecret,
  rotateIncomingWebhookSecretRoute,
  dashboard,
  // Last: the endpoints scripts declare. Platform routes above always win.
  unifiedEndpoint,
];

/**
 * Fails when `app` (built from `table`) has a route that no declaration of `table` serves: a route
 * registered around the table, which the document would not describe.
 */
export function assertDeclared(app: Hono<AppEnv>, table: readonly RouteDef[]): void {
  const served = new Set<string>();
  const mounts: string[] = [];
  for (const { spec } of table) {
    if (spec.mount) mounts.push(spec.mount);
    const methods = spec.method === 'all' ? ['ALL'] : [spec.method.toUpperCase()];
    for (const path of servedPaths(spec)) for (const m of methods) served.add(`${m} ${path}`);
  }
  const undeclared = app.routes
    .filter((r) => !served.has(`${r.method} ${r.path}`))
    .filter((r) => !mounts.some((m) => r.path === m || r.path.startsWith(`${m}/`)))
    .map((r) => `${r.method} ${r.path}`);
  if (undeclared.length > 0) throw new Error(`Routes registered without a declaration in the route table: ${[...new Set(undeclared)].join(', ')}`);
}

/** Every route of the table on a fresh Hono app, checked by assertDeclared. */
export function registerRoutes(app: Hono<AppEnv>, deps: Parameters<RouteDef['register']>[1], table: readonly RouteDef[] = routeTable): Hono<AppEnv> {
  for (const def of table) def.register(app, deps);
  assertDeclared(app, table);
  return app;
}
