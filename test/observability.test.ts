/**
 * Observability: one OpenTelemetry trace from the API through Temporal to the provider call (read
 * by a local OTLP/HTTP receiver), per-environment export, metrics; alerts on a failing sync with
 * the alert webhook; the integration status API; Temporal visibility queries on our search
 * attributes.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { verifyWebhook } from '../features/webhooks/verify.js';
import { startMetabaseFake } from './fakes/index.js';
import { addMetabaseConnection, enableMetabaseEndpoints, startTestPlatform, waitFor, type TestPlatform } from './harness.js';
import { checkWorkflowId, executeWorkflow, syncScheduleId, taskQueueFor } from '../workflows/contracts.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Short export delays so spans arrive quickly (read by the SDK when the exporters are built).
process.env.OTEL_BSP_SCHEDULE_DELAY = '200';
process.env.SWITCHYARD_OTEL_SETTINGS_REFRESH_MS = '200';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** An HTTP server on 127.0.0.1 that records every POST (an OTLP/HTTP JSON receiver, or a webhook receiver). */
async function startReceiver() {
  const received: Received[] = [];
  /** Paths answered 400 (a final refusal) instead of 200. */
  const refused = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(refused.has(req.url ?? '/') ? 400 : 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface SpanOut {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

function anyValue(v: Json): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  return v;
}

/** Spans of the OTLP/HTTP JSON requests received on `path`. */
function spansOf(received: Received[], path: string): SpanOut[] {
  const out: SpanOut[] = [];
  for (const r of received.filter((x) => x.path === path)) {
    const body = JSON.parse(r.body) as Json;
    for (const rs of body.resourceSpans ?? [])
      for (const ss of rs.scopeSpans ?? [])
        for (const s of ss.spans ?? [])
          out.push({
            name: s.name,
            traceId: s.traceId,
            spanId: s.spanId,
            parentSpanId: s.parentSpanId,
            attributes: Object.fromEntries((s.attributes ?? []).map((a: Json) => [a.key, anyValue(a.value)])),
          });
  }
  return out;
}

const API_KEY = 'mb_observability=';

async function setupMetabase(t: TestPlatform, metabaseUrl: string, connectionId: string, endpoints: string[]) {
  const created = await t.api('/integrations', { method: 'POST', json: { provider: 'metabase', unique_key: 'metabase' } });
  assert.ok(created.status === 200 || created.status === 400, await created.clone().text());
  if (endpoints.length) await enableMetabaseEndpoints(t, endpoints);
  await addMetabaseConnection(t, metabaseUrl, API_KEY, { connectionId });
}

describe('OpenTelemetry', () => {
  let t: TestPlatform;
  let otlp: Awaited<ReturnType<typeof startReceiver>>;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;

  before(async () => {
    otlp = await startReceiver();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    t = await startTestPlatform({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_METRIC_EXPORT_INTERVAL: '1000' } });
    await setupMetabase(t, metabase.url, 'obs-trace', ['GET /users/single']);
  });
  let stopped = false;
  after(async () => {
    if (!stopped) await t?.stop();
    await metabase?.close();
    await otlp?.close();
  });

  test('one trace follows an action from the API through workflow and activity to the provider call', async () => {
    // The dev environment also exports to its own collector, with its own headers.
    const env = await t.api('/environment', {
      method: 'PATCH',
      json: { otlp_endpoint: `${otlp.url}/tenant`, otlp_headers: [{ name: 'x-tenant-key', value: 'tenant-secret' }] },
    });
    assert.equal(env.status, 200);
    await new Promise((r) => setTimeout(r, 600)); // the router re-reads settings every 200 ms here

    const user = metabase.addUser({ email: 'traced@example.com', first_name: 'Tra', last_name: 'Ced' });
    const res = await t.api('/action/trigger', {
      method: 'POST',
      headers: { 'connection-id': 'obs-trace', 'provider-config-key': 'metabase' },
      json: { action_name: 'fetch-user', input: { id: user.id } },
    });
    assert.equal(res.status, 200, await res.clone().text());

    const api = await waitFor(
      `the API span (received: ${
        spansOf(otlp.received, '/v1/traces')
          .map((s) => s.name)
          .join(', ') || 'none'
      })`,
      () => spansOf(otlp.received, '/v1/traces').find((s) => s.attributes['switchyard.component'] === 'api' && s.name === 'POST /action/trigger'),
    );
    const traceSpans = await waitFor('workflow, activity and HTTP spans in the same trace', () => {
      const spans = spansOf(otlp.received, '/v1/traces').filter((s) => s.traceId === api.traceId);
      const workflow = spans.find((s) => s.name === 'RunWorkflow:actionWorkflow');
      const activity = spans.find((s) => s.name === 'RunActivity:runAction');
      const outbound = spans.find((s) => s.attributes['switchyard.component'] === 'http' && String(s.attributes['url.full']).includes(`/api/user/${user.id}`));
      return workflow && activity && outbound ? { spans, workflow, activity, outbound } : null;
    });
    const runId = api.attributes['switchyard.run_id'];
    assert.match(String(runId), /^[0-9a-f-]{36}$/);
    assert.equal(api.attributes['switchyard.environment'], 'dev');
    assert.equal(api.attributes['http.route'], '/action/trigger');
    for (const s of [api, traceSpans.workflow, traceSpans.activity, traceSpans.outbound]) {
      assert.equal(s.traceId, api.traceId);
      assert.equal(s.attributes['switchyard.environment'], 'dev', s.name);
      assert.equal(s.attributes['switchyard.integration'], 'metabase', s.name);
      assert.equal(s.attributes['switchyard.connection'], 'obs-trace', s.name);
      assert.equal(s.attributes['switchyard.script'], 'fetch-user', s.name);
      assert.equal(s.attributes['switchyard.run_id'], runId, s.name);
    }
    assert.equal(traceSpans.workflow.attributes['switchyard.component'], 'workflow');
    assert.equal(traceSpans.activity.attributes['switchyard.component'], 'activity');
    assert.equal(traceSpans.outbound.attributes['http.response.status_code'], 200);
    assert.equal(traceSpans.outbound.attributes['http.request.method'], 'GET');
    // Parent links chain API → client start → workflow → activity start → activity → HTTP.
    const byId = new Map(traceSpans.spans.map((s) => [s.spanId, s]));
    const ancestors = (s: SpanOut) => {
      const names: string[] = [];
      for (let p = s.parentSpanId && byId.get(s.parentSpanId); p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) names.push(p.name);
      return names;
    };
    assert.deepEqual(ancestors(traceSpans.outbound), [
      'RunActivity:runAction',
      'StartActivity:runAction',
      'RunWorkflow:actionWorkflow',
      'StartWorkflow:actionWorkflow',
      'POST /action/trigger',
    ]);
    // No credentials in span attributes.
    assert.ok(!JSON.stringify(traceSpans.spans).includes(API_KEY));

    // The environment's own collector got the same trace, with its headers.
    const tenant = await waitFor('the environment export', () => {
      const spans = spansOf(otlp.received, '/tenant/v1/traces').filter((s) => s.traceId === api.traceId);
      return spans.some((s) => s.attributes['switchyard.component'] === 'http') && spans.some((s) => s.name === 'RunWorkflow:actionWorkflow') ? spans : null;
    });
    assert.ok(tenant.length >= 4);
    assert.ok(otlp.received.filter((r) => r.path === '/tenant/v1/traces').every((r) => r.headers['x-tenant-key'] === 'tenant-secret'));
    assert.ok(otlp.received.filter((r) => r.path === '/v1/traces').every((r) => r.headers['x-tenant-key'] === undefined));
  });

  test('an MCP tools/call is one trace too: the /mcp span, the workflow, the activity and the provider call', async () => {
    const user = metabase.addUser({ email: 'mcp-traced@example.com', first_name: 'Mcp', last_name: 'Traced' });
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${t.devKey}`,
        'connection-id': 'obs-trace',
        'provider-config-key': 'metabase',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fetch-user', arguments: { id: user.id } } }),
    });
    assert.equal(res.status, 200);
    const result = ((await res.json()) as Json).result as Json;
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const runId = result._meta['dev.switchyard/run_id'] as string;
    const api = await waitFor('the /mcp span', () =>
      spansOf(otlp.received, '/v1/traces').find((s) => s.attributes['switchyard.component'] === 'api' && s.attributes['switchyard.run_id'] === runId),
    );
    assert.equal(api.attributes['http.route'], '/mcp');
    await waitFor('workflow, activity and HTTP spans in the same trace', () => {
      const spans = spansOf(otlp.received, '/v1/traces').filter((s) => s.traceId === api.traceId);
      return ['RunWorkflow:actionWorkflow', 'RunActivity:runAction'].every((n) => spans.some((s) => s.name === n)) &&
        spans.some((s) => s.attributes['switchyard.component'] === 'http' && String(s.attributes['url.full']).includes(`/api/user/${user.id}`))
        ? spans
        : null;
    });
  });

  test('a run a schedule starts is traced too, as its own trace', async () => {
    const handle = t.platform.deps.temporal.schedule.getHandle(checkWorkflowId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', 'obs-trace'));
    const described = await handle.describe();
    assert.ok(described.raw.schedule?.action?.startWorkflow?.header?.fields?.['switchyard-trace'], 'the schedule carries the tracing marker');
    const before = spansOf(otlp.received, '/v1/traces').filter((s) => s.name === 'RunWorkflow:connectionCheckWorkflow').length;
    await handle.trigger();
    const run = await waitFor('the scheduled run’s spans', () => {
      const spans = spansOf(otlp.received, '/v1/traces');
      const runs = spans.filter((s) => s.name === 'RunWorkflow:connectionCheckWorkflow' && !s.parentSpanId);
      const root = runs.length > 0 && spans.filter((s) => s.name === 'RunWorkflow:connectionCheckWorkflow').length > before ? runs.at(-1)! : null;
      return root && spans.some((s) => s.traceId === root.traceId && s.attributes['switchyard.component'] === 'http') ? root : null;
    });
    assert.equal(run.attributes['switchyard.connection'], 'obs-trace');
    assert.equal(run.attributes['switchyard.script'], 'connection-check');
  });

  test('metrics reach the collector; stopping the platform flushes and unregisters the SDK', async () => {
    stopped = true;
    await t.stop();
    const names = new Set<string>();
    for (const r of otlp.received.filter((x) => x.path === '/v1/metrics')) {
      const body = JSON.parse(r.body) as Json;
      for (const rm of body.resourceMetrics ?? []) for (const sm of rm.scopeMetrics ?? []) for (const m of sm.metrics ?? []) names.add(m.name);
    }
    assert.ok(names.has('switchyard.runs'), [...names].join(', '));
    assert.ok(names.has('switchyard.provider.requests'), [...names].join(', '));
    assert.ok(names.has('switchyard.run.duration'));
    // Back to the API's no-op tracer.
    assert.equal(trace.getTracer('probe').startSpan('probe').isRecording(), false);
  });
});

describe('alerts, the status API and Temporal visibility', () => {
  let t: TestPlatform;
  let metabase: Awaited<ReturnType<typeof startMetabaseFake>>;
  let alertSink: Awaited<ReturnType<typeof startReceiver>>;
  const conn = 'obs-failing';

  const syncStatus = async (): Promise<Json> =>
    ((await (await t.api(`/sync/status?provider_config_key=metabase&syncs=users&connection_id=${conn}`)).json()) as Json).syncs[0];

  async function runAndWait(expected: 'ERROR' | 'SUCCESS'): Promise<Json> {
    const before = (await syncStatus())?.finishedAt ?? null;
    const res = await t.api('/sync/trigger', { method: 'POST', json: { provider_config_key: 'metabase', connection_id: conn, syncs: ['users'] } });
    assert.equal(res.status, 200);
    const s = await waitFor('the sync run to finish', async () => {
      const st = await syncStatus();
      return st.finishedAt && st.finishedAt !== before && st.latestExecutionStatus !== 'RUNNING' ? st : null;
    });
    assert.equal(s.latestExecutionStatus, expected);
    return s;
  }

  const alertPosts = () => alertSink.received.map((r) => ({ ...r, json: JSON.parse(r.body) as Json }));

  before(async () => {
    alertSink = await startReceiver();
    metabase = await startMetabaseFake({ apiKey: API_KEY });
    metabase.addUser({ email: 'a@example.com', first_name: 'A', last_name: 'A' });
    t = await startTestPlatform();
    const env = await t.api('/environment', { method: 'PATCH', json: { alert_webhook_url: `${alertSink.url}/alerts` } });
    assert.equal(env.status, 200);
    // The first three user listings are refused (403 is final): three failed runs in a row.
    metabase.failNext({ status: 403, times: 3, body: '{"message":"forbidden"}', match: (r) => r.method === 'GET' && r.path === '/api/user' });
  });
  after(async () => {
    await t?.stop();
    await metabase?.close();
    await alertSink?.close();
  });

  test('without an OTLP endpoint no SDK is started', () => {
    assert.equal(t.platform.deps.telemetry ?? null, null);
    assert.equal(trace.getTracer('probe').startSpan('probe').isRecording(), false);
  });

  test('a failing sync raises one alert over several failed runs and posts it, signed, to the alert webhook', async () => {
    await setupMetabase(t, metabase.url, conn, ['GET /users']);
    // The schedule's first run starts at once and fails.
    const first = await waitFor('the first (scheduled) run to fail', async () => {
      const st = await syncStatus();
      return st?.latestExecutionStatus === 'ERROR' ? st : null;
    });
    assert.match(first.lastError.description, /403/);
    await runAndWait('ERROR');
    await runAndWait('ERROR');

    // A run's ERROR shows in its status before its alert is counted (failSync releases the sync first).
    const open = await waitFor('the third failure counted on the alert', async () => {
      const body = (await (await t.api('/alerts?status=open')).json()) as Json;
      return body.data.some((a: Json) => a.kind === 'sync_failed' && a.occurrences === 3) ? body : null;
    });
    const syncAlerts = open.data.filter((a: Json) => a.kind === 'sync_failed');
    assert.equal(syncAlerts.length, 1, JSON.stringify(open.data));
    const alert = syncAlerts[0];
    assert.equal(alert.occurrences, 3);
    assert.equal(alert.connection_id, conn);
    assert.equal(alert.integration, 'metabase');
    assert.equal(alert.script, 'users');
    assert.match(alert.message, /403/);

    // Told once, when it opened: that delivery is committed with the alert (features/alerts/notify.ts),
    // so once the three runs are counted every delivery for the opening exists; the sink then gets
    // exactly the attempts of the one there is.
    const { rows: openings } = await t.platform.deps.db.query<{ id: string }>(
      `SELECT id FROM webhook_deliveries WHERE type = 'alert' AND body::jsonb->>'operation' = 'opened' AND body::jsonb->'alert'->>'id' = $1`,
      [alert.id],
    );
    assert.equal(openings.length, 1, 'one delivery for the opening, none for the repeats');
    const delivery = await waitFor('the alert webhook to be delivered', async () => {
      const d = (((await (await t.api('/webhook-deliveries?type=alert&limit=100')).json()) as Json).data as Json[]).find((x) => x.id === openings[0]!.id);
      return d?.status === 'delivered' ? d : null;
    });
    assert.deepEqual(
      delivery.attempts.map((a: Json) => a.status),
      [200],
    );
    const opened = alertPosts().filter((p) => p.json.operation === 'opened' && p.json.alert.id === alert.id);
    assert.equal(opened.length, 1, 'one POST for the opening');
    const post = opened[0]!;
    assert.equal(post.path, '/alerts');
    assert.equal(post.json.type, 'alert');
    assert.equal(post.json.environment, 'dev');
    assert.equal(post.json.alert.id, alert.id);
    const key = ((await (await t.api('/environment')).json()) as Json).data.webhook_signing_key;
    assert.deepEqual(verifyWebhook(post.body, post.headers as Record<string, string>, key), { ok: true });
  });

  test('meanwhile the status API, the connection and GET /sync/status show the failure', async () => {
    const status = ((await (await t.api('/integrations/metabase/status')).json()) as Json).data;
    assert.equal(status.health, 'failing');
    assert.equal(status.connections.total, 1);
    assert.equal(status.connections.failing, 1);
    assert.equal(status.failing_syncs.length, 1);
    const fs = status.failing_syncs[0];
    assert.equal(fs.connection_id, conn);
    assert.equal(fs.sync, 'users');
    assert.match(fs.last_error.description, /403/);
    assert.equal(fs.failed_runs, 3);
    assert.ok(fs.since && fs.since <= fs.last_failed_at);
    assert.equal(status.failing_connections[0].connection_id, conn);
    assert.ok(status.last_errors.some((e: Json) => e.type === 'sync' && e.connection_id === conn && e.sync === 'users'));
    assert.ok(status.open_alerts >= 1);

    const connection = (await (await t.api(`/connections/${conn}?provider_config_key=metabase`)).json()) as Json;
    const syncErrors = connection.errors.filter((e: Json) => e.type === 'sync');
    assert.equal(syncErrors.length, 1);
    assert.ok(syncErrors[0].log_id.startsWith(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', conn, 'users')), syncErrors[0].log_id);
    assert.ok(connection.last_check_at);
    assert.match((await syncStatus()).lastError.description, /403/);
  });

  test('the next successful run resolves the alert, posts the resolution and clears the errors', async () => {
    await runAndWait('SUCCESS');
    // The run's finish resolves the alert after the sync is released (its status already SUCCESS).
    await waitFor('the sync_failed alert to be resolved', async () => {
      const open = (await (await t.api('/alerts?status=open')).json()) as Json;
      return open.data.filter((a: Json) => a.kind === 'sync_failed').length === 0;
    });
    const resolved = (await (await t.api('/alerts?status=resolved')).json()) as Json;
    const alert = resolved.data.find((a: Json) => a.kind === 'sync_failed');
    assert.ok(alert?.resolved_at);
    assert.ok(alert.resolved_by.startsWith(`sync:${taskQueueFor(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev')}:metabase:`), alert.resolved_by);
    await waitFor('the resolution webhook', () => alertPosts().find((p) => p.json.operation === 'resolved' && p.json.alert.id === alert.id));

    const status = ((await (await t.api('/integrations/metabase/status')).json()) as Json).data;
    assert.equal(status.failing_syncs.length, 0);
    const connection = (await (await t.api(`/connections/${conn}?provider_config_key=metabase`)).json()) as Json;
    assert.equal(connection.errors.filter((e: Json) => e.type === 'sync').length, 0);
    assert.equal((await syncStatus()).lastError, null);
    const bad = await t.api('/alerts?status=bogus');
    assert.equal(bad.status, 400);
  });

  test('a failed connection check and a dead-lettered webhook raise alerts; the next success resolves them', async () => {
    const openOf = async (kind: string) => ((await (await t.api(`/alerts?status=open&kind=${kind}`)).json()) as Json).data as Json[];
    const pk = (await t.platform.deps.db.query<{ id: number }>('SELECT id FROM connections WHERE connection_id = $1', [conn])).rows[0]!.id;
    const check = () =>
      executeWorkflow(t.platform.deps.temporal, 'connectionCheckWorkflow', {
        workflowId: `check-test:${conn}:${Date.now()}`,
        taskQueue: taskQueueFor(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev'),
        args: [{ connectionPk: pk }],
      });
    metabase.failNext({ status: 401, times: 2, match: (r) => r.path === '/api/user/current' });
    assert.equal(((await check()) as Json).ok, false);
    assert.equal(((await check()) as Json).ok, false);
    const [checkAlert] = await openOf('connection_check_failed');
    assert.equal(checkAlert?.occurrences, 2);
    assert.equal(checkAlert.connection_id, conn);
    assert.equal(((await check()) as Json).ok, true);
    assert.equal((await openOf('connection_check_failed')).length, 0);

    // A webhook URL that refuses (400 is final): the delivery is dead at once.
    alertSink.refused.add('/refuse');
    await t.api('/environment', { method: 'PATCH', json: { webhook_url: `${alertSink.url}/refuse` } });
    await setupMetabase(t, metabase.url, 'obs-webhook', []);
    const [deadAlert] = await waitFor('the webhook_dead alert', async () => {
      const open = await openOf('webhook_dead');
      return open.length ? open : null;
    });
    // One alert per URL across event types: it names whichever delivery died first (the connection's
    // auth event or its first sync's event, in either order).
    assert.match(deadAlert!.message, /(auth|sync) webhook to http:\/\/127\.0\.0\.1:\d+\/refuse/);
    const deadId = deadAlert!.details.delivery_id as string;
    alertSink.refused.delete('/refuse');
    const replay = await t.api(`/webhook-deliveries/${deadId}/replay`, { method: 'POST' });
    assert.equal(replay.status, 201);
    await waitFor('the webhook_dead alert to resolve', async () => (await openOf('webhook_dead')).length === 0);
    await t.api('/environment', { method: 'PATCH', json: { webhook_url: null } });
  });

  test('the connection’s workflows are found through a visibility query on its search attribute', async () => {
    const client = t.platform.deps.temporal;
    const list = async (query: string) => {
      const out: { workflowId: string; type: string; status: string }[] = [];
      for await (const w of client.workflow.list({ query })) out.push({ workflowId: w.workflowId, type: w.type, status: w.status.name });
      return out;
    };
    // The dev server's visibility store lags a little behind: poll.
    const all = await waitFor('the connection’s workflows in visibility', async () => {
      const found = await list(`SwitchyardConnection="${conn}"`);
      return found.some((w) => w.type === 'syncWorkflow') && found.some((w) => w.type === 'connectionCheckWorkflow') ? found : null;
    });
    assert.ok(
      all.filter((w) => w.type !== 'webhookDeliveryWorkflow').every((w) => w.workflowId.includes(conn)),
      JSON.stringify(all),
    );
    const failed = await waitFor('the failed sync runs', async () => {
      const found = await list(`SwitchyardConnection="${conn}" AND WorkflowType="syncWorkflow" AND ExecutionStatus="Failed"`);
      return found.length >= 3 ? found : null;
    });
    assert.ok(failed.every((w) => w.workflowId.startsWith(syncScheduleId(t.config.SWITCHYARD_TASK_QUEUE_PREFIX, 'dev', 'metabase', conn, 'users'))));
    const described = await client.workflow.getHandle(failed[0]!.workflowId).describe();
    assert.match((await described.staticSummary()) ?? '', /^Sync users of metabase\//);
  });
});
