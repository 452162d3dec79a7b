/**
 * @module api/dashboard/webhooks — the environment's webhook settings (URLs, event kinds, alert
 * channel), its signing key and rotation, and the deliveries with their attempts and a replay
 * button. Same library calls as api/routes/environment.ts and api/routes/webhook-deliveries.ts.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { NotFound } from '../../lib/errors.js';
import { assertUrlAllowed, redactUrl } from '../../lib/http/index.js';
import { attemptsOf, listDeliveries, type DeliveryStatus } from '../../features/webhooks/deliveries.js';
import { replayDelivery } from '../../features/webhooks/emit.js';
import { getSettings, rotateSigningKey, signingKeys, updateSettings, type WebhookEventToggles } from '../../features/webhooks/settings.js';
import type { AppDeps } from '../context.js';
import { field, noticeFrom, redirectWith, type DashContext, type DashEnv } from './context.js';
import { Badge, CopyField, Csrf, Empty, Layout, renderPage, statusTone, When, withQuery, type Notice } from './layout.js';
import { BarChart, DataTable, FilterForm, Pager, SelectFilter, type ChartSeries } from './components.js';
import { dailyWebhookLatency, type DayLatency } from '../../features/dashboard/activity.js';

const LATENCY_DAYS = 14;
const LATENCY: readonly ChartSeries<'p50' | 'p95'>[] = [
  { key: 'p50', label: (ms) => `median ${ms} ms` },
  { key: 'p95', label: (ms) => `95th percentile ${ms} ms` },
];

/** How long webhooks took from their event to their receipt (first successful attempt), per day. */
function LatencyChart({ days }: { days: DayLatency[] }) {
  const delivered = days.reduce((n, d) => n + d.delivered, 0);
  return (
    <BarChart
      title={`Delivery latency, last ${LATENCY_DAYS} days: event to receipt`}
      note={`${delivered} delivered; blue median, purple 95th percentile, in ms; replays not counted`}
      kind="latency"
      label={`Webhook delivery latency: ${delivered} delivered`}
      days={days}
      series={LATENCY}
    />
  );
}

const DELIVERY_PAGE_SIZE = 20;
const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

const URL_FIELDS = [
  ['webhook_url', 'Webhook URL', 'Your backend endpoint for auth, sync and action webhooks.'],
  ['secondary_webhook_url', 'Secondary webhook URL', 'Optional: every webhook is also sent here.'],
  ['alert_webhook_url', 'Alert channel URL', 'Where alerts go (for example a Slack incoming webhook), such as deliveries given up on.'],
] as const;
type UrlField = (typeof URL_FIELDS)[number][0];
/** What the settings form holds: the URLs and the per-URL rate, as typed. */
type Entered = Record<UrlField | 'webhook_max_per_second', string>;
const maxPerSecond = z.coerce.number().positive().max(10_000);

const EVENTS: [keyof WebhookEventToggles, string][] = [
  ['auth', 'Auth: connections created, refreshed or failing'],
  ['sync', 'Sync: records changed'],
  ['async_action', 'Async action: an asynchronous action finished'],
  ['on_sync_completion_always', 'Send sync webhooks even when a run changed nothing'],
];

function mask(key: string): string {
  return `${'•'.repeat(8)}${key.slice(-4)}`;
}

export function webhookPages(deps: AppDeps, app: Hono<DashEnv>): void {
  async function webhooksPage(c: DashContext, status: 200 | 400 = 200, notice: Notice | null = noticeFrom(c), entered?: Entered) {
    const ctx = c.get('page');
    const settings = await getSettings(deps.db, deps.box, ctx.env.id);
    const keys = await signingKeys(deps.db, deps.box, ctx.env.id);
    const filter = c.req.query('status');
    const statusFilter = filter === 'pending' || filter === 'delivered' || filter === 'dead' ? (filter as DeliveryStatus) : undefined;
    const before = /^\d{1,18}$/.test(c.req.query('before') ?? '') ? Number(c.req.query('before')) : undefined;
    const page = await listDeliveries(deps.db, ctx.env.id, { status: statusFilter, beforeSeq: before, limit: DELIVERY_PAGE_SIZE + 1 });
    const deliveries = page.slice(0, DELIVERY_PAGE_SIZE);
    const attempts = await attemptsOf(
      deps.db,
      deliveries.map((d) => d.id),
    );
    const current: Entered = entered ?? {
      webhook_max_per_second: settings.webhookMaxPerSecond === null ? '' : String(settings.webhookMaxPerSecond),
      webhook_url: settings.webhookUrl ?? '',
      secondary_webhook_url: settings.secondaryWebhookUrl ?? '',
      alert_webhook_url: settings.alertWebhookUrl ?? '',
    };
    return renderPage(
      c,
      status,
      <Layout ctx={ctx} section="webhooks" title="Webhooks" notice={notice}>
        <LatencyChart days={await dailyWebhookLatency(deps.db, ctx.env.id, LATENCY_DAYS)} />
        <section aria-labelledby="settings-heading" class="panel">
          <h2 id="settings-heading">Settings</h2>
          <form method="post" action={`${ctx.base}/webhooks/settings`} class="form-grid">
            <Csrf token={ctx.csrf} />
            {URL_FIELDS.map(([name, label, hint]) => (
              <div class="field">
                <label for={name}>{label}</label>
                <input id={name} name={name} type="url" maxlength={2048} value={current[name]} aria-describedby={`${name}-hint`} autocomplete="off" />
                <p class="hint" id={`${name}-hint`}>
                  {hint} Empty disables it.
                </p>
              </div>
            ))}
            <div class="field">
              <label for="webhook_max_per_second">Max requests per second per URL</label>
              <input
                id="webhook_max_per_second"
                name="webhook_max_per_second"
                type="number"
                min="0.001"
                max="10000"
                step="any"
                value={current.webhook_max_per_second}
                aria-describedby="webhook_max_per_second-hint"
              />
              <p class="hint" id="webhook_max_per_second-hint">
                Webhooks beyond this rate wait for their turn; none is dropped. Empty uses the default (SWITCHYARD_WEBHOOK_MAX_PER_SECOND
                {deps.config.SWITCHYARD_WEBHOOK_MAX_PER_SECOND > 0 ? `, ${deps.config.SWITCHYARD_WEBHOOK_MAX_PER_SECOND} per second` : ': no limit'}).
              </p>
            </div>
            <fieldset class="field">
              <legend>Event kinds</legend>
              {EVENTS.map(([name, label]) => (
                <div class="check">
                  <input type="checkbox" id={`event-${name}`} name={`event_${name}`} value="1" checked={settings.events[name]} />
                  <label for={`event-${name}`}>{label}</label>
                </div>
              ))}
              <p class="hint">Forwarded provider webhooks are always sent while a URL is set.</p>
            </fieldset>
            <div class="actions">
              <button type="submit" class="btn btn-primary">
                Save settings
              </button>
            </div>
          </form>
        </section>

        <section aria-labelledby="key-heading" class="panel">
          <h2 id="key-heading">Signing key</h2>
          <p>
            Webhooks carry an HMAC-SHA256 signature made with this key. Current key: <code>{mask(keys.current)}</code>
            {keys.previousExpiresAt && (
              <>
                {' '}
                · the previous key also signs until <When at={keys.previousExpiresAt} />
              </>
            )}
          </p>
          <details>
            <summary>Show the signing key</summary>
            <CopyField id="signing-key" label="Webhook signing key" value={keys.current} />
          </details>
          <form method="post" action={`${ctx.base}/webhooks/rotate-key`} class="inline-form">
            <Csrf token={ctx.csrf} />
            <button type="submit" class="btn">
              Rotate signing key
            </button>
          </form>
        </section>

        <section aria-labelledby="deliveries-heading">
          <h2 id="deliveries-heading">Deliveries</h2>
          <FilterForm action={`${ctx.base}/webhooks`} label="Filter deliveries">
            <SelectFilter id="d-status" name="status" label="Status" value={statusFilter ?? ''} options={['pending', 'delivered', 'dead']} />
          </FilterForm>
          {deliveries.length === 0 ? (
            <Empty>No deliveries.</Empty>
          ) : (
            <DataTable
              caption="Webhook deliveries, newest first"
              class="deliveries"
              columns={['Created', 'Type', 'Connection', 'URL', 'Status', 'Attempts', 'Replay']}
            >
              {deliveries.map((d) => {
                const list = attempts.get(d.id) ?? [];
                return (
                  <tr data-delivery={d.id} data-status={d.status}>
                    <td>
                      <When at={d.createdAt} />
                      {d.replayOf && <div class="muted">replay of {d.replayOf.slice(0, 8)}</div>}
                    </td>
                    <td>{d.type}</td>
                    <td>{d.connectionId ? `${d.integration ?? ''} / ${d.connectionId}` : '—'}</td>
                    <td class="url">
                      <span class="break">{redactUrl(d.url)}</span>
                    </td>
                    <td>
                      <Badge tone={statusTone(d.status)}>{d.status}</Badge>
                      {d.lastError && <div class="error-text">{d.lastError}</div>}
                    </td>
                    <td>
                      {list.length === 0 ? (
                        <span class="muted">none yet</span>
                      ) : (
                        <details>
                          <summary>
                            {list.length} attempt{list.length > 1 ? 's' : ''}, last {d.lastStatus ?? 'no answer'}
                          </summary>
                          <ol class="attempts">
                            {list.map((a) => (
                              <li>
                                <When at={a.startedAt} /> · <Badge tone={a.status === null ? 'error' : statusTone(a.status)}>{a.status ?? 'no answer'}</Badge>
                                {a.durationMs !== null && ` · ${a.durationMs} ms`}
                                {a.error && <span class="error-text"> · {a.error}</span>}
                                {a.responseExcerpt && <pre class="excerpt">{a.responseExcerpt}</pre>}
                              </li>
                            ))}
                          </ol>
                        </details>
                      )}
                    </td>
                    <td>
                      <form method="post" action={`${ctx.base}/webhooks/deliveries/${d.id}/replay`}>
                        <Csrf token={ctx.csrf} />
                        <button type="submit" class="btn btn-small">
                          Replay<span class="sr-only"> delivery {d.id}</span>
                        </button>
                      </form>
                    </td>
                  </tr>
                );
              })}
            </DataTable>
          )}
          {page.length > DELIVERY_PAGE_SIZE && (
            <Pager label="Delivery pages">
              <a href={`${withQuery(`${ctx.base}/webhooks`, { status: statusFilter, before: deliveries[deliveries.length - 1]!.seq })}#deliveries-heading`}>
                Older →
              </a>
            </Pager>
          )}
        </section>
      </Layout>,
    );
  }

  app
    .get('/webhooks', (c) => webhooksPage(c))
    .post('/webhooks/settings', async (c) => {
      const env = c.get('page').env;
      const entered = Object.fromEntries([...URL_FIELDS.map(([name]) => name), 'webhook_max_per_second'].map((name) => [name, field(c, name)])) as Entered;
      const problems: string[] = [];
      const rate = entered.webhook_max_per_second.trim() ? maxPerSecond.safeParse(entered.webhook_max_per_second.trim()) : null;
      if (rate && !rate.success) problems.push('Max requests per second per URL: must be a number above 0, at most 10000.');
      for (const [name, label] of URL_FIELDS) {
        const url = entered[name];
        if (!url) continue;
        if (!httpUrl.safeParse(url).success) {
          problems.push(`${label}: must be an http(s) URL`);
          continue;
        }
        try {
          await assertUrlAllowed(url, deps.config.SWITCHYARD_ALLOWED_PRIVATE_HOSTS);
        } catch (err) {
          problems.push(`${label}: ${(err as Error).message}`);
        }
      }
      if (problems.length) return webhooksPage(c, 400, { kind: 'error', text: problems.join(' ') }, entered);
      await updateSettings(deps.db, deps.box, env.id, {
        webhookUrl: entered.webhook_url || null,
        secondaryWebhookUrl: entered.secondary_webhook_url || null,
        alertWebhookUrl: entered.alert_webhook_url || null,
        webhookMaxPerSecond: rate?.success ? rate.data : null,
        events: Object.fromEntries(EVENTS.map(([name]) => [name, field(c, `event_${name}`) === '1'])),
      });
      return redirectWith(c, `${c.get('page').base}/webhooks`, 'settings-saved');
    })
    .post('/webhooks/rotate-key', async (c) => {
      await rotateSigningKey(deps.db, deps.box, c.get('page').env.id);
      return redirectWith(c, `${c.get('page').base}/webhooks`, 'key-rotated', '#key-heading');
    })
    .post('/webhooks/deliveries/:id/replay', async (c) => {
      const id = c.req.param('id');
      const copy = z.uuid().safeParse(id).success ? await replayDelivery(deps, c.get('page').env.id, id) : null;
      if (!copy) throw new NotFound('not_found', `No webhook delivery ${id} in this environment`);
      return redirectWith(c, `${c.get('page').base}/webhooks`, 'replayed', '#deliveries-heading');
    });
}
